package rolebinding

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func errorPaths(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, string(e.Type)+" "+e.Field)
	}
	return out
}

func TestGolden(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	storage, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	// The input leaves roleRef.apiGroup and the subjects' apiGroups out:
	// the golden files show upstream's defaults.
	registrytest.Golden(t, scheme, storage["rolebindings"].(rest.Creater), "testdata", "rolebinding")
}

func TestValidate(t *testing.T) {
	ref := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "r"}
	tests := []struct {
		name     string
		ref      rbacv1.RoleRef
		subjects []rbacv1.Subject
		want     []string
	}{
		{"valid", ref, []rbacv1.Subject{{Kind: "ServiceAccount", Name: "sa"}, {Kind: "User", APIGroup: rbacv1.GroupName, Name: "u"}}, nil},
		{"bad role ref", rbacv1.RoleRef{APIGroup: "x", Kind: "Pod"},
			nil, []string{"FieldValueNotSupported roleRef.apiGroup", "FieldValueNotSupported roleRef.kind", "FieldValueRequired roleRef.name"}},
		{"bad subjects", ref, []rbacv1.Subject{
			{Kind: "User", Name: "u"},
			{Kind: "ServiceAccount", APIGroup: rbacv1.GroupName, Name: "Not_DNS"},
			{Kind: "Robot", Name: "r"},
			{Kind: "Group"},
		}, []string{
			"FieldValueNotSupported subjects[0].apiGroup",
			"FieldValueInvalid subjects[1].name",
			"FieldValueNotSupported subjects[1].apiGroup",
			"FieldValueNotSupported subjects[2].kind",
			"FieldValueRequired subjects[3].name",
			"FieldValueInvalid subjects[3].name",
			"FieldValueNotSupported subjects[3].apiGroup",
		}},
	}
	s := NewStrategy(registrytest.NewScheme(t))
	for _, tt := range tests {
		rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "ns"}, RoleRef: tt.ref, Subjects: tt.subjects}
		got := errorPaths(s.Validate(context.Background(), rb))
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestRoleRefImmutable(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	storage, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	store := storage["rolebindings"].(rest.StandardStorage)
	ctx := registrytest.NamespaceContext("ns")
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "ns"}, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "r"}}
	created, err := store.Create(ctx, rb, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	changed := created.(*rbacv1.RoleBinding).DeepCopy()
	changed.RoleRef.Name = "other"
	_, _, err = store.Update(ctx, "b", rest.DefaultUpdatedObjectInfo(changed), nil, nil, false, nil)
	if !apierrors.IsInvalid(err) {
		t.Fatalf("changing roleRef: %v, want Invalid", err)
	}
	causes := err.(apierrors.APIStatus).Status().Details.Causes
	if len(causes) != 1 || causes[0].Field != "roleRef" || !strings.HasSuffix(causes[0].Message, ": cannot change roleRef") {
		t.Errorf("causes = %+v", causes)
	}
	subjectsOnly := created.(*rbacv1.RoleBinding).DeepCopy()
	subjectsOnly.Subjects = []rbacv1.Subject{{Kind: "User", APIGroup: rbacv1.GroupName, Name: "u"}}
	if _, _, err := store.Update(ctx, "b", rest.DefaultUpdatedObjectInfo(subjectsOnly), nil, nil, false, nil); err != nil {
		t.Errorf("changing subjects: %v", err)
	}
}

func TestTable(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 10, 0, 0, time.UTC)
	rb := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "b", CreationTimestamp: metav1.NewTime(now.Add(-5 * time.Minute))},
		RoleRef:    rbacv1.RoleRef{Kind: "ClusterRole", Name: "view"},
		Subjects: []rbacv1.Subject{
			{Kind: "User", Name: "a"}, {Kind: "User", Name: "b"}, {Kind: "Group", Name: "g"},
			{Kind: "ServiceAccount", Namespace: "ns", Name: "sa"},
		},
	}
	table, err := Table().WithClock(func() time.Time { return now }).ConvertToTable(context.Background(), rb, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []any{"b", "ClusterRole/view", "5m", "a, b", "g", "ns:sa"}
	if diff := cmp.Diff(want, table.Rows[0].Cells); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
	var names []string
	for _, c := range table.ColumnDefinitions {
		names = append(names, c.Name)
	}
	if diff := cmp.Diff([]string{"Name", "Role", "Age", "Users", "Groups", "ServiceAccounts"}, names); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
}
