package role

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
	registrytest.Golden(t, scheme, storage["roles"].(rest.Creater), "testdata", "role")
}

func TestValidate(t *testing.T) {
	meta := metav1.ObjectMeta{Name: "r", Namespace: "ns"}
	tests := []struct {
		name  string
		rules []rbacv1.PolicyRule
		want  []string
	}{
		{"valid", []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}}, nil},
		{"no verbs", []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}}}, []string{"FieldValueRequired rules[0].verbs"}},
		{"no api groups or resources", []rbacv1.PolicyRule{{Verbs: []string{"get"}}},
			[]string{"FieldValueRequired rules[0].apiGroups", "FieldValueRequired rules[0].resources"}},
		{"names with many resources", []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods", "secrets"}, ResourceNames: []string{"x"}}},
			[]string{"FieldValueRequired rules[0].resourceNames"}},
		{"non-resource URLs in a namespaced role", []rbacv1.PolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}}},
			[]string{"FieldValueInvalid rules[0].nonResourceURLs"}},
	}
	s := NewStrategy(registrytest.NewScheme(t))
	for _, tt := range tests {
		got := errorPaths(s.Validate(context.Background(), &rbacv1.Role{ObjectMeta: meta, Rules: tt.rules}))
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestCreateInvalidAndUpdateCreates(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	storage, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	store := storage["roles"].(rest.StandardStorage)
	ctx := registrytest.NamespaceContext("ns")
	bad := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "ns"}, Rules: []rbacv1.PolicyRule{{}}}
	if _, err := store.Create(ctx, bad, nil, nil); !apierrors.IsInvalid(err) {
		t.Errorf("create invalid role: %v, want Invalid", err)
	}
	good := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "ns"}}
	if _, created, err := store.Update(ctx, "r", rest.DefaultUpdatedObjectInfo(good), nil, nil, false, nil); err != nil || !created {
		t.Errorf("PUT of a missing role: created=%v err=%v, want created", created, err)
	}
}
