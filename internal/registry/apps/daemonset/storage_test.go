package daemonset

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
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
	if _, ok := s["daemonsets/scale"]; ok {
		t.Errorf("daemonsets have no scale subresource")
	}
	return scheme, s, registrytest.NamespaceContext("ns")
}

func valid() *appsv1.DaemonSet {
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "ns"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "agent"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: "agent"}}},
			},
		},
	}
}

func TestGolden(t *testing.T) {
	scheme, s, _ := newStorage(t)
	obj := registrytest.Golden(t, scheme, s["daemonsets"].(rest.Creater), "testdata", "minimal")
	ds := obj.(*appsv1.DaemonSet)
	if ds.Generation != 1 || ds.Annotations[appsv1.DeprecatedTemplateGeneration] != "1" {
		t.Errorf("generation = %d, annotations = %v", ds.Generation, ds.Annotations)
	}
}

func TestDefaults(t *testing.T) {
	ds := valid()
	registrytest.NewScheme(t).Default(ds)
	want := appsv1.DaemonSetUpdateStrategy{
		Type: appsv1.RollingUpdateDaemonSetStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDaemonSet{
			MaxUnavailable: ptr.To(intstr.FromInt32(1)),
			MaxSurge:       ptr.To(intstr.FromInt32(0)),
		},
	}
	if diff := cmp.Diff(want, ds.Spec.UpdateStrategy); diff != "" {
		t.Errorf("updateStrategy (-want +got):\n%s", diff)
	}
	if ptr.Deref(ds.Spec.RevisionHistoryLimit, 0) != 10 {
		t.Errorf("revisionHistoryLimit = %v", ds.Spec.RevisionHistoryLimit)
	}
}

func TestCreateInvalid(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*appsv1.DaemonSet)
		want   []string
	}{
		{"no selector", func(ds *appsv1.DaemonSet) { ds.Spec.Selector = nil },
			[]string{"spec.selector FieldValueRequired", "spec.template.metadata.labels FieldValueInvalid"}},
		{"selector does not match", func(ds *appsv1.DaemonSet) { ds.Spec.Template.Labels = map[string]string{"app": "x"} },
			[]string{"spec.template.metadata.labels FieldValueInvalid"}},
		{"unknown strategy", func(ds *appsv1.DaemonSet) { ds.Spec.UpdateStrategy.Type = "Surge" },
			[]string{"spec.updateStrategy FieldValueNotSupported"}},
		{"both maxSurge and maxUnavailable", func(ds *appsv1.DaemonSet) {
			ds.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptr.To(intstr.FromInt32(1)), MaxSurge: ptr.To(intstr.FromString("10%"))}
		}, []string{"spec.updateStrategy.rollingUpdate.maxSurge FieldValueInvalid"}},
		{"both zero", func(ds *appsv1.DaemonSet) {
			ds.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptr.To(intstr.FromInt32(0))}
		}, []string{"spec.updateStrategy.rollingUpdate.maxUnavailable FieldValueRequired"}},
		{"restartPolicy Never", func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever },
			[]string{"spec.template.spec.restartPolicy FieldValueNotSupported"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scheme, s, ctx := newStorage(t)
			ds := valid()
			tt.mutate(ds)
			_, err := appstest.Create(ctx, scheme, s["daemonsets"], ds)
			if diff := cmp.Diff(tt.want, appstest.Causes(t, err)); diff != "" {
				t.Errorf("causes (-want +got):\n%s\n%v", diff, err)
			}
		})
	}
}

func TestUpdate(t *testing.T) {
	tests := []struct {
		name                   string
		mutate                 func(*appsv1.DaemonSet)
		wantGeneration         int64
		wantTemplateGeneration string
		wantCauses             []string
	}{
		{"labels only", func(ds *appsv1.DaemonSet) { ds.Labels = map[string]string{"a": "b"} }, 1, "1", nil},
		{"template generation not writable", func(ds *appsv1.DaemonSet) { ds.Annotations[appsv1.DeprecatedTemplateGeneration] = "9" }, 1, "1", nil},
		{"status ignored", func(ds *appsv1.DaemonSet) { ds.Status.NumberReady = 3 }, 1, "1", nil},
		{"spec without template", func(ds *appsv1.DaemonSet) { ds.Spec.MinReadySeconds = 5 }, 2, "1", nil},
		{"template", func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Containers[0].Image = "agent:2" }, 2, "2", nil},
		{"selector immutable", func(ds *appsv1.DaemonSet) {
			ds.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpExists}}}
		}, 0, "", []string{"spec.selector FieldValueInvalid"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scheme, s, ctx := newStorage(t)
			obj, err := appstest.Create(ctx, scheme, s["daemonsets"], valid())
			if err != nil {
				t.Fatal(err)
			}
			ds := obj.(*appsv1.DaemonSet).DeepCopy()
			tt.mutate(ds)
			out, err := appstest.Update(ctx, s["daemonsets"], "agent", ds)
			if tt.wantCauses != nil {
				if diff := cmp.Diff(tt.wantCauses, appstest.Causes(t, err)); diff != "" {
					t.Errorf("causes (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := out.(*appsv1.DaemonSet)
			if got.Generation != tt.wantGeneration || got.Annotations[appsv1.DeprecatedTemplateGeneration] != tt.wantTemplateGeneration || got.Status.NumberReady != 0 {
				t.Errorf("generation = %d (want %d), template generation = %q (want %q), status = %+v",
					got.Generation, tt.wantGeneration, got.Annotations[appsv1.DeprecatedTemplateGeneration], tt.wantTemplateGeneration, got.Status)
			}
		})
	}
}

func TestStatus(t *testing.T) {
	scheme, s, ctx := newStorage(t)
	obj, err := appstest.Create(ctx, scheme, s["daemonsets"], valid())
	if err != nil {
		t.Fatal(err)
	}
	ds := obj.(*appsv1.DaemonSet).DeepCopy()
	ds.Spec.MinReadySeconds = 9
	ds.Status = appsv1.DaemonSetStatus{DesiredNumberScheduled: 2, NumberReady: 1}
	out, err := appstest.Update(ctx, s["daemonsets/status"], "agent", ds)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.(*appsv1.DaemonSet); got.Spec.MinReadySeconds != 0 || got.Status.DesiredNumberScheduled != 2 || got.Generation != 1 {
		t.Errorf("status update stored minReadySeconds=%d status=%+v generation=%d", got.Spec.MinReadySeconds, got.Status, got.Generation)
	}
	bad := out.(*appsv1.DaemonSet).DeepCopy()
	bad.Status.NumberUnavailable = -1
	_, err = appstest.Update(ctx, s["daemonsets/status"], "agent", bad)
	if diff := cmp.Diff([]string{"status.numberUnavailable FieldValueInvalid"}, appstest.Causes(t, err)); diff != "" {
		t.Errorf("causes (-want +got):\n%s", diff)
	}
}

func TestTable(t *testing.T) {
	ds := valid()
	ds.Spec.Template.Spec.NodeSelector = map[string]string{"kubernetes.io/os": "linux"}
	ds.Status = appsv1.DaemonSetStatus{DesiredNumberScheduled: 3, CurrentNumberScheduled: 3, NumberReady: 2, UpdatedNumberScheduled: 1, NumberAvailable: 2}
	table, err := Table().ConvertToTable(context.Background(), ds, nil)
	if err != nil {
		t.Fatal(err)
	}
	names, wide := appstest.ColumnNames(table)
	want := []string{"Name", "Desired", "Current", "Ready", "Up-to-date", "Available", "Node Selector", "Age", "Containers", "Images", "Selector"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]bool{false, false, false, false, false, false, false, false, true, true, true}, wide); diff != "" {
		t.Errorf("wide (-want +got):\n%s", diff)
	}
	cells := []any{"agent", int64(3), int64(3), int64(2), int64(1), int64(2), "kubernetes.io/os=linux", "<unknown>", "agent", "agent", "app=agent"}
	if diff := cmp.Diff(cells, table.Rows[0].Cells); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
}
