package replicaset

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
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

func valid() *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns"},
		Spec: appsv1.ReplicaSetSpec{
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
	obj := registrytest.Golden(t, scheme, s["replicasets"].(rest.Creater), "testdata", "minimal")
	if rs := obj.(*appsv1.ReplicaSet); rs.Generation != 1 || ptr.Deref(rs.Spec.Replicas, 0) != 1 {
		t.Errorf("generation = %d, replicas = %v; want 1 and 1", rs.Generation, rs.Spec.Replicas)
	}
}

func TestCreateInvalid(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*appsv1.ReplicaSet)
		want   []string
	}{
		{"no selector", func(rs *appsv1.ReplicaSet) { rs.Spec.Selector = nil },
			[]string{"spec.selector FieldValueRequired", "spec.template.metadata.labels FieldValueInvalid"}},
		{"selector does not match", func(rs *appsv1.ReplicaSet) { rs.Spec.Template.Labels = nil },
			[]string{"spec.template.metadata.labels FieldValueInvalid"}},
		{"negative replicas", func(rs *appsv1.ReplicaSet) { rs.Spec.Replicas = ptr.To[int32](-2) },
			[]string{"spec.replicas FieldValueInvalid"}},
		{"negative minReadySeconds", func(rs *appsv1.ReplicaSet) { rs.Spec.MinReadySeconds = -1 },
			[]string{"spec.minReadySeconds FieldValueInvalid"}},
		{"restartPolicy OnFailure", func(rs *appsv1.ReplicaSet) { rs.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure },
			[]string{"spec.template.spec.restartPolicy FieldValueNotSupported"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scheme, s, ctx := newStorage(t)
			rs := valid()
			tt.mutate(rs)
			_, err := appstest.Create(ctx, scheme, s["replicasets"], rs)
			if diff := cmp.Diff(tt.want, appstest.Causes(t, err)); diff != "" {
				t.Errorf("causes (-want +got):\n%s\n%v", diff, err)
			}
		})
	}
}

func TestUpdate(t *testing.T) {
	tests := []struct {
		name           string
		mutate         func(*appsv1.ReplicaSet)
		wantGeneration int64
		wantCauses     []string
	}{
		{"annotations keep generation", func(rs *appsv1.ReplicaSet) { rs.Annotations = map[string]string{"a": "b"} }, 1, nil},
		{"status ignored", func(rs *appsv1.ReplicaSet) { rs.Status.Replicas = 5 }, 1, nil},
		{"spec bumps", func(rs *appsv1.ReplicaSet) { rs.Spec.MinReadySeconds = 5 }, 2, nil},
		{"selector immutable", func(rs *appsv1.ReplicaSet) {
			rs.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpExists}}}
		}, 0, []string{"spec.selector FieldValueInvalid"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scheme, s, ctx := newStorage(t)
			obj, err := appstest.Create(ctx, scheme, s["replicasets"], valid())
			if err != nil {
				t.Fatal(err)
			}
			rs := obj.(*appsv1.ReplicaSet).DeepCopy()
			tt.mutate(rs)
			out, err := appstest.Update(ctx, s["replicasets"], "web", rs)
			if tt.wantCauses != nil {
				if diff := cmp.Diff(tt.wantCauses, appstest.Causes(t, err)); diff != "" {
					t.Errorf("causes (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := out.(*appsv1.ReplicaSet)
			if got.Generation != tt.wantGeneration || got.Status.Replicas != 0 {
				t.Errorf("generation = %d (want %d), status.replicas = %d (want 0)", got.Generation, tt.wantGeneration, got.Status.Replicas)
			}
		})
	}
}

func TestStatus(t *testing.T) {
	scheme, s, ctx := newStorage(t)
	obj, err := appstest.Create(ctx, scheme, s["replicasets"], valid())
	if err != nil {
		t.Fatal(err)
	}
	rs := obj.(*appsv1.ReplicaSet).DeepCopy()
	rs.Spec.Replicas = ptr.To[int32](9)
	rs.Status = appsv1.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 1, ReadyReplicas: 1}
	out, err := appstest.Update(ctx, s["replicasets/status"], "web", rs)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.(*appsv1.ReplicaSet); *got.Spec.Replicas != 1 || got.Status.ReadyReplicas != 1 || got.Generation != 1 {
		t.Errorf("status update stored replicas=%d status=%+v generation=%d", *got.Spec.Replicas, got.Status, got.Generation)
	}
	bad := out.(*appsv1.ReplicaSet).DeepCopy()
	bad.Status.FullyLabeledReplicas = -1
	_, err = appstest.Update(ctx, s["replicasets/status"], "web", bad)
	if diff := cmp.Diff([]string{"status.fullyLabeledReplicas FieldValueInvalid"}, appstest.Causes(t, err)); diff != "" {
		t.Errorf("causes (-want +got):\n%s", diff)
	}
}

func TestScale(t *testing.T) {
	scheme, s, ctx := newStorage(t)
	if _, err := appstest.Create(ctx, scheme, s["replicasets"], valid()); err != nil {
		t.Fatal(err)
	}
	sc := appstest.Get(t, ctx, s["replicasets/scale"], "web").(*autoscalingv1.Scale)
	sc.Spec.Replicas = 0
	if _, err := appstest.Update(ctx, s["replicasets/scale"], "web", sc); err != nil {
		t.Fatal(err)
	}
	if rs := appstest.Get(t, ctx, s["replicasets"], "web").(*appsv1.ReplicaSet); *rs.Spec.Replicas != 0 {
		t.Errorf("after scale to 0: replicas=%d", *rs.Spec.Replicas)
	}
}

func TestTable(t *testing.T) {
	rs := valid()
	rs.Spec.Replicas = ptr.To[int32](3)
	rs.Status = appsv1.ReplicaSetStatus{Replicas: 2, ReadyReplicas: 1}
	table, err := Table().ConvertToTable(context.Background(), rs, nil)
	if err != nil {
		t.Fatal(err)
	}
	names, wide := appstest.ColumnNames(table)
	if diff := cmp.Diff([]string{"Name", "Desired", "Current", "Ready", "Age", "Containers", "Images", "Selector"}, names); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]bool{false, false, false, false, false, true, true, true}, wide); diff != "" {
		t.Errorf("wide (-want +got):\n%s", diff)
	}
	want := []any{"web", int64(3), int64(2), int64(1), "<unknown>", "nginx", "nginx", "app=web"}
	if diff := cmp.Diff(want, table.Rows[0].Cells); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
}
