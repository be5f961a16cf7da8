package clusterrole

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
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
	created := registrytest.Golden(t, scheme, storage["clusterroles"].(rest.Creater), "testdata", "clusterrole")
	if ns := created.(*rbacv1.ClusterRole).Namespace; ns != "" {
		t.Errorf("cluster role stored with namespace %q", ns)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		role rbacv1.ClusterRole
		want []string
	}{
		{"non-resource URLs", rbacv1.ClusterRole{Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/metrics"}}}}, nil},
		{"non-resource URLs mixed with resources", rbacv1.ClusterRole{Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/metrics"}, Resources: []string{"pods"}}}},
			[]string{"FieldValueInvalid rules[0].nonResourceURLs"}},
		{"no verbs", rbacv1.ClusterRole{Rules: []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}}}}, []string{"FieldValueRequired rules[0].verbs"}},
		{"empty aggregation rule", rbacv1.ClusterRole{AggregationRule: &rbacv1.AggregationRule{}},
			[]string{"FieldValueRequired aggregationRule.clusterRoleSelectors"}},
		{"bad aggregation selector", rbacv1.ClusterRole{AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{
			{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Bogus"}}}}}},
			[]string{"FieldValueInvalid aggregationRule.clusterRoleSelectors[0].matchExpressions[0].operator", "FieldValueInvalid aggregationRule.clusterRoleSelectors[0]"}},
		{"bad name", rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "a/b"}}, []string{"FieldValueInvalid metadata.name"}},
	}
	s := NewStrategy(registrytest.NewScheme(t))
	for _, tt := range tests {
		if tt.role.Name == "" {
			tt.role.Name = "cr"
		}
		got := errorPaths(s.Validate(context.Background(), &tt.role))
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}
