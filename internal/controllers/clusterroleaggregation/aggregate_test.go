package clusterroleaggregation

import (
	"reflect"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
)

// TestSameRuleIsSemanticEquality: sameRule agrees with the semantic
// equality it stands in for, field by field, and fails when PolicyRule
// grows a field it does not compare.
func TestSameRuleIsSemanticEquality(t *testing.T) {
	if n := reflect.TypeFor[rbacv1.PolicyRule]().NumField(); n != 5 {
		t.Fatalf("PolicyRule has %d fields; sameRule compares 5", n)
	}
	base := rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"},
		ResourceNames: []string{"a"}, NonResourceURLs: []string{"/x"}}
	variants := map[string]func(*rbacv1.PolicyRule){
		"same":                    func(*rbacv1.PolicyRule) {},
		"verbs":                   func(r *rbacv1.PolicyRule) { r.Verbs = []string{"list"} },
		"apiGroups":               func(r *rbacv1.PolicyRule) { r.APIGroups = []string{"apps"} },
		"resources":               func(r *rbacv1.PolicyRule) { r.Resources = []string{"pods", "pods/log"} },
		"resourceNames":           func(r *rbacv1.PolicyRule) { r.ResourceNames = nil },
		"nonResourceURLs":         func(r *rbacv1.PolicyRule) { r.NonResourceURLs = []string{"/y"} },
		"order":                   func(r *rbacv1.PolicyRule) { r.Verbs = []string{"list", "get"} },
		"nil and empty are equal": func(r *rbacv1.PolicyRule) { r.ResourceNames = []string{} },
	}
	for name, change := range variants {
		t.Run(name, func(t *testing.T) {
			a, b := base, base
			if name == "nil and empty are equal" {
				a.ResourceNames = nil
			}
			change(&b)
			if got, want := sameRule(a, b), apiequality.Semantic.DeepEqual(a, b); got != want {
				t.Errorf("sameRule = %v, semantic equality = %v", got, want)
			}
		})
	}
}
