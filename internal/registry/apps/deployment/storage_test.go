package deployment

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/registry/apps/appstest"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func newStorage(t *testing.T) (*runtime.Scheme, map[string]rest.Storage, context.Context) {
	t.Helper()
	scheme := registrytest.NewScheme(t)
	s, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatalf("NewStorage: %v", err)
	}
	return scheme, s, registrytest.NamespaceContext("ns")
}

func valid() *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns"},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx"}}},
			},
		},
	}
}

func TestGolden(t *testing.T) {
	scheme, s, _ := newStorage(t)
	obj := registrytest.Golden(t, scheme, s["deployments"].(rest.Creater), "testdata", "minimal")
	if d := obj.(*appsv1.Deployment); d.Generation != 1 {
		t.Errorf("generation = %d, want 1", d.Generation)
	}
}

func TestDefaults(t *testing.T) {
	d := valid()
	registrytest.NewScheme(t).Default(d)
	want := appsv1.DeploymentSpec{
		Replicas: ptr.To[int32](1),
		Strategy: appsv1.DeploymentStrategy{
			Type: appsv1.RollingUpdateDeploymentStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDeployment{
				MaxUnavailable: ptr.To(intstr.FromString("25%")),
				MaxSurge:       ptr.To(intstr.FromString("25%")),
			},
		},
		RevisionHistoryLimit:    ptr.To[int32](10),
		ProgressDeadlineSeconds: ptr.To[int32](600),
	}
	got := d.Spec
	got.Selector, got.Template = nil, corev1.PodTemplateSpec{}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
	if d.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyAlways {
		t.Errorf("pod template defaults not applied: restartPolicy %q", d.Spec.Template.Spec.RestartPolicy)
	}
}

func TestCreateInvalid(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*appsv1.Deployment)
		want   []string
	}{
		{"no selector", func(d *appsv1.Deployment) { d.Spec.Selector = nil },
			[]string{"spec.selector FieldValueRequired", "spec.template.metadata.labels FieldValueInvalid"}},
		{"empty selector", func(d *appsv1.Deployment) { d.Spec.Selector = &metav1.LabelSelector{} },
			[]string{"spec.selector FieldValueInvalid"}},
		{"selector does not match", func(d *appsv1.Deployment) { d.Spec.Template.Labels = map[string]string{"app": "other"} },
			[]string{"spec.template.metadata.labels FieldValueInvalid"}},
		{"negative replicas", func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](-1) },
			[]string{"spec.replicas FieldValueInvalid"}},
		{"unknown strategy", func(d *appsv1.Deployment) { d.Spec.Strategy.Type = "BlueGreen" },
			[]string{"spec.strategy FieldValueNotSupported"}},
		{"recreate with rollingUpdate", func(d *appsv1.Deployment) {
			d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{}}
		}, []string{"spec.strategy.rollingUpdate FieldValueForbidden"}},
		{"maxUnavailable and maxSurge 0", func(d *appsv1.Deployment) {
			d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxUnavailable: ptr.To(intstr.FromInt32(0)), MaxSurge: ptr.To(intstr.FromString("0%"))}
		}, []string{"spec.strategy.rollingUpdate.maxUnavailable FieldValueInvalid"}},
		{"maxUnavailable over 100%", func(d *appsv1.Deployment) {
			d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxUnavailable: ptr.To(intstr.FromString("150%"))}
		}, []string{"spec.strategy.rollingUpdate.maxUnavailable FieldValueInvalid"}},
		{"restartPolicy Never", func(d *appsv1.Deployment) { d.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever },
			[]string{"spec.template.spec.restartPolicy FieldValueNotSupported"}},
		{"activeDeadlineSeconds", func(d *appsv1.Deployment) { d.Spec.Template.Spec.ActiveDeadlineSeconds = ptr.To[int64](5) },
			[]string{"spec.template.spec.activeDeadlineSeconds FieldValueForbidden"}},
		{"progress deadline not above minReadySeconds", func(d *appsv1.Deployment) {
			d.Spec.MinReadySeconds, d.Spec.ProgressDeadlineSeconds = 30, ptr.To[int32](30)
		}, []string{"spec.progressDeadlineSeconds FieldValueInvalid"}},
		{"negative revisionHistoryLimit", func(d *appsv1.Deployment) { d.Spec.RevisionHistoryLimit = ptr.To[int32](-1) },
			[]string{"spec.revisionHistoryLimit FieldValueInvalid"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scheme, s, ctx := newStorage(t)
			d := valid()
			tt.mutate(d)
			_, err := appstest.Create(ctx, scheme, s["deployments"], d)
			if diff := cmp.Diff(tt.want, appstest.Causes(t, err)); diff != "" {
				t.Errorf("causes (-want +got):\n%s\n%v", diff, err)
			}
		})
	}
}

func TestSelectorMismatchMessage(t *testing.T) {
	scheme, s, ctx := newStorage(t)
	d := valid()
	d.Spec.Template.Labels = map[string]string{"app": "other"}
	_, err := appstest.Create(ctx, scheme, s["deployments"], d)
	want := `Deployment.apps "web" is invalid: spec.template.metadata.labels: Invalid value: {"app":"other"}: ` + "`selector` does not match template `labels`"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
}

func TestUpdate(t *testing.T) {
	scheme, s, ctx := newStorage(t)
	obj, err := appstest.Create(ctx, scheme, s["deployments"], valid())
	if err != nil {
		t.Fatal(err)
	}
	created := obj.(*appsv1.Deployment)
	if created.Generation != 1 {
		t.Fatalf("generation on create = %d", created.Generation)
	}

	tests := []struct {
		name           string
		mutate         func(*appsv1.Deployment)
		wantGeneration int64
		wantCauses     []string
	}{
		{"labels only", func(d *appsv1.Deployment) { d.Labels = map[string]string{"x": "y"} }, 1, nil},
		{"status ignored", func(d *appsv1.Deployment) { d.Status.Replicas = 7 }, 1, nil},
		{"annotations bump", func(d *appsv1.Deployment) { d.Annotations = map[string]string{"a": "b"} }, 2, nil},
		{"spec bumps", func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](3) }, 2, nil},
		{"selector immutable", func(d *appsv1.Deployment) {
			d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "a"}}
			d.Spec.Template.Labels = map[string]string{"app": "web", "tier": "a"}
		}, 0, []string{"spec.selector FieldValueInvalid"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, s, ctx := newStorage(t)
			obj, err := appstest.Create(ctx, scheme, s["deployments"], valid())
			if err != nil {
				t.Fatal(err)
			}
			d := obj.(*appsv1.Deployment).DeepCopy()
			tt.mutate(d)
			out, err := appstest.Update(ctx, s["deployments"], "web", d)
			if tt.wantCauses != nil {
				if diff := cmp.Diff(tt.wantCauses, appstest.Causes(t, err)); diff != "" {
					t.Errorf("causes (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := out.(*appsv1.Deployment)
			if got.Generation != tt.wantGeneration || got.Status.Replicas != 0 {
				t.Errorf("generation = %d (want %d), status.replicas = %d (want 0)", got.Generation, tt.wantGeneration, got.Status.Replicas)
			}
		})
	}
}

func TestStatus(t *testing.T) {
	scheme, s, ctx := newStorage(t)
	obj, err := appstest.Create(ctx, scheme, s["deployments"], valid())
	if err != nil {
		t.Fatal(err)
	}
	d := obj.(*appsv1.Deployment).DeepCopy()
	d.Spec.Replicas = ptr.To[int32](9)
	d.Labels = map[string]string{"changed": "yes"}
	d.Status = appsv1.DeploymentStatus{Replicas: 1, ReadyReplicas: 1, AvailableReplicas: 1, UpdatedReplicas: 1, ObservedGeneration: 1}
	out, err := appstest.Update(ctx, s["deployments/status"], "web", d)
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*appsv1.Deployment)
	if *got.Spec.Replicas != 1 || got.Labels != nil || got.Status.ReadyReplicas != 1 || got.Generation != 1 {
		t.Errorf("status update stored replicas=%d labels=%v status=%+v generation=%d", *got.Spec.Replicas, got.Labels, got.Status, got.Generation)
	}

	bad := got.DeepCopy()
	bad.Status.Replicas, bad.Status.ReadyReplicas = -1, 2
	_, err = appstest.Update(ctx, s["deployments/status"], "web", bad)
	want := []string{
		"status.availableReplicas FieldValueInvalid",
		"status.readyReplicas FieldValueInvalid",
		"status.replicas FieldValueInvalid",
		"status.updatedReplicas FieldValueInvalid",
	}
	if diff := cmp.Diff(want, appstest.Causes(t, err)); diff != "" {
		t.Errorf("causes (-want +got):\n%s", diff)
	}
}

func TestScale(t *testing.T) {
	scheme, s, ctx := newStorage(t)
	if _, err := appstest.Create(ctx, scheme, s["deployments"], valid()); err != nil {
		t.Fatal(err)
	}
	sc := appstest.Get(t, ctx, s["deployments/scale"], "web").(*autoscalingv1.Scale)
	if sc.Spec.Replicas != 1 || sc.Status.Selector != "app=web" {
		t.Errorf("scale = %+v", sc)
	}
	sc.Spec.Replicas = 4
	if _, err := appstest.Update(ctx, s["deployments/scale"], "web", sc); err != nil {
		t.Fatal(err)
	}
	d := appstest.Get(t, ctx, s["deployments"], "web").(*appsv1.Deployment)
	if *d.Spec.Replicas != 4 || d.Generation != 2 {
		t.Errorf("after scale: replicas=%d generation=%d", *d.Spec.Replicas, d.Generation)
	}
}

func TestTable(t *testing.T) {
	d := valid()
	d.Spec.Replicas = ptr.To[int32](3)
	d.Spec.Template.Spec.Containers = append(d.Spec.Template.Spec.Containers, corev1.Container{Name: "side", Image: "busybox"})
	d.Status = appsv1.DeploymentStatus{ReadyReplicas: 2, UpdatedReplicas: 3, AvailableReplicas: 1}
	table, err := Table().ConvertToTable(context.Background(), d, nil)
	if err != nil {
		t.Fatal(err)
	}
	names, wide := appstest.ColumnNames(table)
	if diff := cmp.Diff([]string{"Name", "Ready", "Up-to-date", "Available", "Age", "Containers", "Images", "Selector"}, names); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]bool{false, false, false, false, false, true, true, true}, wide); diff != "" {
		t.Errorf("wide (-want +got):\n%s", diff)
	}
	want := []any{"web", "2/3", int64(3), int64(1), "<unknown>", "nginx,side", "nginx,busybox", "app=web"}
	if diff := cmp.Diff(want, table.Rows[0].Cells); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
}

func TestDiscovery(t *testing.T) {
	_, s, _ := newStorage(t)
	main := s["deployments"].(interface {
		ShortNames() []string
		Categories() []string
		NamespaceScoped() bool
	})
	if !cmp.Equal(main.ShortNames(), []string{"deploy"}) || !cmp.Equal(main.Categories(), []string{"all"}) || !main.NamespaceScoped() {
		t.Errorf("shortNames=%v categories=%v namespaced=%v", main.ShortNames(), main.Categories(), main.NamespaceScoped())
	}
	if _, ok := s["deployments/scale"].New().(*autoscalingv1.Scale); !ok {
		t.Errorf("deployments/scale serves %T", s["deployments/scale"].New())
	}
}
