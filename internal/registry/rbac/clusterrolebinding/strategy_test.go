package clusterrolebinding

import (
	"context"
	"testing"

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
	registrytest.Golden(t, scheme, storage["clusterrolebindings"].(rest.Creater), "testdata", "clusterrolebinding")
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name     string
		ref      rbacv1.RoleRef
		subjects []rbacv1.Subject
		want     []string
	}{
		{"valid", rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
			[]rbacv1.Subject{{Kind: "ServiceAccount", Namespace: "ns", Name: "sa"}}, nil},
		{"role ref to a Role", rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "r"}, nil,
			[]string{"FieldValueNotSupported roleRef.kind"}},
		{"service account without namespace", rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
			[]rbacv1.Subject{{Kind: "ServiceAccount", Name: "sa"}}, []string{"FieldValueRequired subjects[0].namespace"}},
	}
	s := NewStrategy(registrytest.NewScheme(t))
	for _, tt := range tests {
		crb := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "b"}, RoleRef: tt.ref, Subjects: tt.subjects}
		got := errorPaths(s.Validate(context.Background(), crb))
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
	store := storage["clusterrolebindings"].(rest.StandardStorage)
	ctx := registrytest.NamespaceContext("")
	crb := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "b"}, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"}}
	created, err := store.Create(ctx, crb, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	changed := created.(*rbacv1.ClusterRoleBinding).DeepCopy()
	changed.RoleRef.Name = "edit"
	if _, _, err := store.Update(ctx, "b", rest.DefaultUpdatedObjectInfo(changed), nil, nil, false, nil); !apierrors.IsInvalid(err) {
		t.Errorf("changing roleRef: %v, want Invalid", err)
	}
}
