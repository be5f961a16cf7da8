package statefulset

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

func valid() *appsv1.StatefulSet {
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "ns"},
		Spec: appsv1.StatefulSetSpec{
			ServiceName: "db",
			Selector:    &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "db"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "pg", Image: "postgres"}}},
			},
		},
	}
}

func TestGolden(t *testing.T) {
	scheme, s, _ := newStorage(t)
	obj := registrytest.Golden(t, scheme, s["statefulsets"].(rest.Creater), "testdata", "minimal")
	if ss := obj.(*appsv1.StatefulSet); ss.Generation != 1 {
		t.Errorf("generation = %d, want 1", ss.Generation)
	}
}

func TestDefaults(t *testing.T) {
	ss := valid()
	registrytest.NewScheme(t).Default(ss)
	want := appsv1.StatefulSetSpec{
		Replicas:            ptr.To[int32](1),
		PodManagementPolicy: appsv1.OrderedReadyPodManagement,
		UpdateStrategy: appsv1.StatefulSetUpdateStrategy{
			Type:          appsv1.RollingUpdateStatefulSetStrategyType,
			RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To[int32](0)},
		},
		RevisionHistoryLimit: ptr.To[int32](10),
		PersistentVolumeClaimRetentionPolicy: &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
			WhenDeleted: appsv1.RetainPersistentVolumeClaimRetentionPolicyType,
			WhenScaled:  appsv1.RetainPersistentVolumeClaimRetentionPolicyType,
		},
	}
	got := ss.Spec
	got.Selector, got.Template, got.ServiceName = nil, corev1.PodTemplateSpec{}, ""
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
}

func TestCreateInvalid(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*appsv1.StatefulSet)
		want   []string
	}{
		{"no selector", func(ss *appsv1.StatefulSet) { ss.Spec.Selector = nil },
			[]string{"spec.selector FieldValueRequired", "spec.template.metadata.labels FieldValueInvalid"}},
		{"empty selector", func(ss *appsv1.StatefulSet) { ss.Spec.Selector = &metav1.LabelSelector{} },
			[]string{"spec.selector FieldValueInvalid"}},
		{"name not a DNS label", func(ss *appsv1.StatefulSet) { ss.Name = "db.v1" },
			[]string{"metadata.name FieldValueInvalid"}},
		{"negative replicas", func(ss *appsv1.StatefulSet) { ss.Spec.Replicas = ptr.To[int32](-1) },
			[]string{"spec.replicas FieldValueInvalid"}},
		{"podManagementPolicy", func(ss *appsv1.StatefulSet) { ss.Spec.PodManagementPolicy = "Random" },
			[]string{"spec.podManagementPolicy FieldValueInvalid"}},
		{"updateStrategy type", func(ss *appsv1.StatefulSet) { ss.Spec.UpdateStrategy.Type = "Canary" },
			[]string{"spec.updateStrategy FieldValueInvalid"}},
		{"OnDelete with rollingUpdate", func(ss *appsv1.StatefulSet) {
			ss.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType, RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{}}
		}, []string{"spec.updateStrategy.rollingUpdate FieldValueInvalid"}},
		{"negative partition and maxUnavailable 0", func(ss *appsv1.StatefulSet) {
			ss.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To[int32](-1), MaxUnavailable: ptr.To(intstr.FromInt32(0))}}
		}, []string{"spec.updateStrategy.rollingUpdate.maxUnavailable FieldValueInvalid", "spec.updateStrategy.rollingUpdate.partition FieldValueInvalid"}},
		{"pvc retention policy", func(ss *appsv1.StatefulSet) {
			ss.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenDeleted: "Keep", WhenScaled: "Delete"}
		}, []string{"spec.persistentVolumeClaimRetentionPolicy.whenDeleted FieldValueNotSupported"}},
		{"restartPolicy Never", func(ss *appsv1.StatefulSet) { ss.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever },
			[]string{"spec.template.spec.restartPolicy FieldValueNotSupported"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scheme, s, ctx := newStorage(t)
			ss := valid()
			tt.mutate(ss)
			_, err := appstest.Create(ctx, scheme, s["statefulsets"], ss)
			if diff := cmp.Diff(tt.want, appstest.Causes(t, err)); diff != "" {
				t.Errorf("causes (-want +got):\n%s\n%v", diff, err)
			}
		})
	}
}

func TestUpdate(t *testing.T) {
	tests := []struct {
		name           string
		mutate         func(*appsv1.StatefulSet)
		wantGeneration int64
		wantCauses     []string
	}{
		{"labels keep generation", func(ss *appsv1.StatefulSet) { ss.Labels = map[string]string{"a": "b"} }, 1, nil},
		{"status ignored", func(ss *appsv1.StatefulSet) { ss.Status.Replicas = 3 }, 1, nil},
		{"replicas", func(ss *appsv1.StatefulSet) { ss.Spec.Replicas = ptr.To[int32](3) }, 2, nil},
		{"template", func(ss *appsv1.StatefulSet) { ss.Spec.Template.Spec.Containers[0].Image = "postgres:18" }, 2, nil},
		{"updateStrategy", func(ss *appsv1.StatefulSet) {
			ss.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType}
		}, 2, nil},
		{"serviceName forbidden", func(ss *appsv1.StatefulSet) { ss.Spec.ServiceName = "other" }, 0, []string{"spec FieldValueForbidden"}},
		{"volumeClaimTemplates forbidden", func(ss *appsv1.StatefulSet) {
			ss.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data"}}}
		}, 0, []string{"spec FieldValueForbidden"}},
		{"selector forbidden", func(ss *appsv1.StatefulSet) {
			ss.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpExists}}}
		}, 0, []string{"spec FieldValueForbidden"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scheme, s, ctx := newStorage(t)
			obj, err := appstest.Create(ctx, scheme, s["statefulsets"], valid())
			if err != nil {
				t.Fatal(err)
			}
			ss := obj.(*appsv1.StatefulSet).DeepCopy()
			tt.mutate(ss)
			out, err := appstest.Update(ctx, s["statefulsets"], "db", ss)
			if tt.wantCauses != nil {
				if diff := cmp.Diff(tt.wantCauses, appstest.Causes(t, err)); diff != "" {
					t.Errorf("causes (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := out.(*appsv1.StatefulSet)
			if got.Generation != tt.wantGeneration || got.Status.Replicas != 0 {
				t.Errorf("generation = %d (want %d), status.replicas = %d (want 0)", got.Generation, tt.wantGeneration, got.Status.Replicas)
			}
		})
	}
}

func TestStatus(t *testing.T) {
	scheme, s, ctx := newStorage(t)
	obj, err := appstest.Create(ctx, scheme, s["statefulsets"], valid())
	if err != nil {
		t.Fatal(err)
	}
	ss := obj.(*appsv1.StatefulSet).DeepCopy()
	ss.Spec.Replicas = ptr.To[int32](9)
	ss.Status = appsv1.StatefulSetStatus{Replicas: 1, ReadyReplicas: 1, CurrentReplicas: 1}
	out, err := appstest.Update(ctx, s["statefulsets/status"], "db", ss)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.(*appsv1.StatefulSet); *got.Spec.Replicas != 1 || got.Status.ReadyReplicas != 1 || got.Generation != 1 {
		t.Errorf("status update stored replicas=%d status=%+v generation=%d", *got.Spec.Replicas, got.Status, got.Generation)
	}
	bad := out.(*appsv1.StatefulSet).DeepCopy()
	bad.Status.AvailableReplicas = 2
	_, err = appstest.Update(ctx, s["statefulsets/status"], "db", bad)
	want := []string{"status.availableReplicas FieldValueInvalid", "status.availableReplicas FieldValueInvalid"}
	if diff := cmp.Diff(want, appstest.Causes(t, err)); diff != "" {
		t.Errorf("causes (-want +got):\n%s", diff)
	}
}

func TestScale(t *testing.T) {
	scheme, s, ctx := newStorage(t)
	if _, err := appstest.Create(ctx, scheme, s["statefulsets"], valid()); err != nil {
		t.Fatal(err)
	}
	sc := appstest.Get(t, ctx, s["statefulsets/scale"], "db").(*autoscalingv1.Scale)
	sc.Spec.Replicas = 3
	if _, err := appstest.Update(ctx, s["statefulsets/scale"], "db", sc); err != nil {
		t.Fatal(err)
	}
	if ss := appstest.Get(t, ctx, s["statefulsets"], "db").(*appsv1.StatefulSet); *ss.Spec.Replicas != 3 || ss.Generation != 2 {
		t.Errorf("after scale: replicas=%d generation=%d", *ss.Spec.Replicas, ss.Generation)
	}
}

func TestTable(t *testing.T) {
	ss := valid()
	ss.Spec.Replicas = ptr.To[int32](3)
	ss.Status.ReadyReplicas = 2
	table, err := Table().ConvertToTable(context.Background(), ss, nil)
	if err != nil {
		t.Fatal(err)
	}
	names, wide := appstest.ColumnNames(table)
	if diff := cmp.Diff([]string{"Name", "Ready", "Age", "Containers", "Images"}, names); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]bool{false, false, false, true, true}, wide); diff != "" {
		t.Errorf("wide (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{"db", "2/3", "<unknown>", "pg", "postgres"}, table.Rows[0].Cells); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
}
