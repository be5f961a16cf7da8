package storageversionmigration

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func TestGolden(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	m, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	registrytest.Golden(t, scheme, m["storageversionmigrations"].(rest.Creater), "testdata", "minimal")
}

func valid() *storagemigrationv1.StorageVersionMigration {
	return &storagemigrationv1.StorageVersionMigration{
		ObjectMeta: metav1.ObjectMeta{Name: "m", ResourceVersion: "1"},
		Spec:       storagemigrationv1.StorageVersionMigrationSpec{Resource: metav1.GroupResource{Group: "apps", Resource: "deployments"}},
	}
}

func describe(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, string(e.Type)+" "+e.Field)
	}
	return out
}

func cond(t storagemigrationv1.MigrationConditionType, s metav1.ConditionStatus) metav1.Condition {
	return metav1.Condition{Type: string(t), Status: s, Reason: "Test", LastTransitionTime: metav1.Now()}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*storagemigrationv1.StorageVersionMigration)
		want   []string
	}{
		{"valid", func(*storagemigrationv1.StorageVersionMigration) {}, nil},
		{"core group", func(s *storagemigrationv1.StorageVersionMigration) { s.Spec.Resource.Group = "" }, nil},
		{"no resource", func(s *storagemigrationv1.StorageVersionMigration) { s.Spec.Resource.Resource = "" }, []string{"FieldValueRequired spec.resource.resource"}},
		{"resource not a label", func(s *storagemigrationv1.StorageVersionMigration) { s.Spec.Resource.Resource = "Deployments" }, []string{"FieldValueInvalid spec.resource.resource"}},
		{"bad group", func(s *storagemigrationv1.StorageVersionMigration) { s.Spec.Resource.Group = "Apps_" }, []string{"FieldValueInvalid spec.resource.group"}},
	}
	s := NewStrategy(registrytest.NewScheme(t))
	for _, tt := range tests {
		svm := valid()
		tt.mutate(svm)
		if diff := cmp.Diff(tt.want, describe(s.Validate(context.Background(), svm))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestValidateStatusUpdate(t *testing.T) {
	tests := []struct {
		name     string
		old, new storagemigrationv1.StorageVersionMigrationStatus
		want     []string
	}{
		{"running", storagemigrationv1.StorageVersionMigrationStatus{}, storagemigrationv1.StorageVersionMigrationStatus{ResourceVersion: "12", Conditions: []metav1.Condition{cond(storagemigrationv1.MigrationRunning, metav1.ConditionTrue)}}, nil},
		{"bad resource version", storagemigrationv1.StorageVersionMigrationStatus{}, storagemigrationv1.StorageVersionMigrationStatus{ResourceVersion: "x"}, []string{"FieldValueInvalid status.resourceVersion"}},
		{"resource version changed", storagemigrationv1.StorageVersionMigrationStatus{ResourceVersion: "12"}, storagemigrationv1.StorageVersionMigrationStatus{ResourceVersion: "13"}, []string{"FieldValueInvalid status.resourceVersion"}},
		{"succeeded and failed", storagemigrationv1.StorageVersionMigrationStatus{}, storagemigrationv1.StorageVersionMigrationStatus{ResourceVersion: "1", Conditions: []metav1.Condition{cond(storagemigrationv1.MigrationSucceeded, metav1.ConditionTrue), cond(storagemigrationv1.MigrationFailed, metav1.ConditionTrue)}}, []string{"FieldValueInvalid status.conditions"}},
		{"succeeded while running", storagemigrationv1.StorageVersionMigrationStatus{}, storagemigrationv1.StorageVersionMigrationStatus{ResourceVersion: "1", Conditions: []metav1.Condition{cond(storagemigrationv1.MigrationSucceeded, metav1.ConditionTrue), cond(storagemigrationv1.MigrationRunning, metav1.ConditionTrue)}}, []string{"FieldValueInvalid status.conditions"}},
		{"success undone", storagemigrationv1.StorageVersionMigrationStatus{ResourceVersion: "1", Conditions: []metav1.Condition{cond(storagemigrationv1.MigrationSucceeded, metav1.ConditionTrue)}}, storagemigrationv1.StorageVersionMigrationStatus{ResourceVersion: "1", Conditions: []metav1.Condition{cond(storagemigrationv1.MigrationSucceeded, metav1.ConditionFalse)}}, []string{"FieldValueInvalid status.conditions"}},
	}
	s := StatusStrategy{NewStrategy(registrytest.NewScheme(t))}
	for _, tt := range tests {
		old, svm := valid(), valid()
		old.Status, svm.Status = tt.old, tt.new
		if diff := cmp.Diff(tt.want, describe(s.ValidateUpdate(context.Background(), svm, old))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestSpecAndStatusOwners: create drops status, a main write keeps the
// stored status and cannot change the spec, a status write keeps the spec.
func TestSpecAndStatusOwners(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	m, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	ctx := registrytest.NamespaceContext("")
	r, status := m["storageversionmigrations"].(rest.StandardStorage), m["storageversionmigrations/status"].(rest.Updater)
	in := valid()
	in.ResourceVersion = ""
	in.Status.ResourceVersion = "99"
	obj, err := r.Create(ctx, in, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := obj.(*storagemigrationv1.StorageVersionMigration).Status; got.ResourceVersion != "" {
		t.Errorf("status after create = %+v, want empty", got)
	}
	svm := obj.(*storagemigrationv1.StorageVersionMigration).DeepCopy()
	svm.Status.ResourceVersion = "7"
	svm.Spec.Resource.Resource = "statefulsets"
	obj, _, err = status.Update(ctx, svm.Name, rest.DefaultUpdatedObjectInfo(svm), nil, nil, false, &metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := obj.(*storagemigrationv1.StorageVersionMigration)
	if got.Status.ResourceVersion != "7" || got.Spec.Resource.Resource != "deployments" {
		t.Errorf("after status write: spec %v status %+v, want deployments and 7", got.Spec.Resource, got.Status)
	}
	svm = got.DeepCopy()
	svm.Spec.Resource.Resource = "statefulsets"
	if _, _, err := r.Update(ctx, svm.Name, rest.DefaultUpdatedObjectInfo(svm), nil, nil, false, &metav1.UpdateOptions{}); err == nil {
		t.Error("spec change through the main resource succeeded, want Invalid")
	}
}
