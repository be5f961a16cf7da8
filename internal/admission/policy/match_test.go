package policy

import (
	"context"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/admission"
)

func rule(ops []admissionregistrationv1.OperationType, groups, versions, resources []string, scope admissionregistrationv1.ScopeType, names ...string) admissionregistrationv1.NamedRuleWithOperations {
	return admissionregistrationv1.NamedRuleWithOperations{
		ResourceNames: names,
		RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: ops,
			Rule:       admissionregistrationv1.Rule{APIGroups: groups, APIVersions: versions, Resources: resources, Scope: &scope},
		},
	}
}

func TestRuleMatches(t *testing.T) {
	all := []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll}
	create := []admissionregistrationv1.OperationType{admissionregistrationv1.Create}
	star := []string{"*"}
	deploy := &admission.Attributes{Name: "web", Namespace: "ns", Operation: admission.Create, Resource: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}}
	scale := &admission.Attributes{Name: "web", Namespace: "ns", Operation: admission.Update, Resource: deploy.Resource, Subresource: "scale"}
	ns := &admission.Attributes{Name: "ns", Operation: admission.Create, Resource: schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}}
	tests := []struct {
		name string
		r    admissionregistrationv1.NamedRuleWithOperations
		a    *admission.Attributes
		want bool
	}{
		{"exact", rule(create, []string{"apps"}, []string{"v1"}, []string{"deployments"}, "*"), deploy, true},
		{"operation", rule([]admissionregistrationv1.OperationType{admissionregistrationv1.Delete}, star, star, star, "*"), deploy, false},
		{"group", rule(all, []string{""}, star, star, "*"), deploy, false},
		{"version", rule(all, star, []string{"v1beta1"}, star, "*"), deploy, false},
		{"star excludes subresources", rule(all, star, star, star, "*"), scale, false},
		{"star slash star", rule(all, star, star, []string{"*/*"}, "*"), scale, true},
		{"resource slash sub", rule(all, star, star, []string{"deployments/scale"}, "*"), scale, true},
		{"star slash sub", rule(all, star, star, []string{"*/scale"}, "*"), scale, true},
		{"resource slash star matches main too", rule(all, star, star, []string{"deployments/*"}, "*"), deploy, true},
		{"namespaced scope", rule(all, star, star, star, admissionregistrationv1.NamespacedScope), deploy, true},
		{"cluster scope", rule(all, star, star, star, admissionregistrationv1.ClusterScope), deploy, false},
		{"namespaces are cluster scoped", rule(all, star, star, star, admissionregistrationv1.ClusterScope), ns, true},
		{"namespaces are not namespaced", rule(all, star, star, star, admissionregistrationv1.NamespacedScope), &admission.Attributes{Name: "ns", Namespace: "ns", Operation: admission.Update, Resource: ns.Resource}, false},
		{"resourceNames", rule(all, star, star, star, "*", "db"), deploy, false},
		{"resourceNames match", rule(all, star, star, star, "*", "db", "web"), deploy, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RuleMatches(tt.a, &tt.r); got != tt.want {
				t.Errorf("RuleMatches = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestMatches(t *testing.T) {
	star := []string{"*"}
	all := []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll}
	nsGetter := func(_ context.Context, name string) (*corev1.Namespace, error) {
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"env": name}}}, nil
	}
	m := &Matcher{Namespaces: nsGetter}
	obj := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Labels: map[string]string{"team": "a"}}}
	cm := func(ns string) *admission.Attributes {
		return &admission.Attributes{Name: "c", Namespace: ns, Operation: admission.Create, Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Object: obj}
	}
	sel := func(k, v string) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchLabels: map[string]string{k: v}}
	}
	tests := []struct {
		name string
		mr   *admissionregistrationv1.MatchResources
		a    *admission.Attributes
		want bool
	}{
		{"nil matches", nil, cm("prod"), true},
		{"no rules match everything", &admissionregistrationv1.MatchResources{}, cm("prod"), true},
		{"namespace selector", &admissionregistrationv1.MatchResources{NamespaceSelector: sel("env", "prod")}, cm("prod"), true},
		{"namespace selector misses", &admissionregistrationv1.MatchResources{NamespaceSelector: sel("env", "prod")}, cm("dev"), false},
		{"object selector", &admissionregistrationv1.MatchResources{ObjectSelector: sel("team", "a")}, cm("dev"), true},
		{"object selector misses", &admissionregistrationv1.MatchResources{ObjectSelector: sel("team", "b")}, cm("dev"), false},
		{"excluded", &admissionregistrationv1.MatchResources{
			ResourceRules:        []admissionregistrationv1.NamedRuleWithOperations{rule(all, star, star, star, "*")},
			ExcludeResourceRules: []admissionregistrationv1.NamedRuleWithOperations{rule(all, star, star, []string{"configmaps"}, "*")},
		}, cm("dev"), false},
		{"cluster-scoped ignores namespace selector", &admissionregistrationv1.MatchResources{NamespaceSelector: sel("env", "prod")}, cm(""), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := m.Matches(context.Background(), tt.a, tt.mr)
			if err != nil || got != tt.want {
				t.Errorf("Matches = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}
