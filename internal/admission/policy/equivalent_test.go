package policy

import (
	"context"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/admission"
)

// widgets are served in v1 and v2 from one storage.
type widgetMapper struct{}

func (widgetMapper) EquivalentResources(gvr schema.GroupVersionResource, _ string) []schema.GroupVersionResource {
	return []schema.GroupVersionResource{gvr.GroupResource().WithVersion("v1"), gvr.GroupResource().WithVersion("v2")}
}

func (widgetMapper) KindFor(gvr schema.GroupVersionResource, _ string) (schema.GroupVersionKind, bool) {
	return gvr.GroupVersion().WithKind("Widget"), true
}

// A rule for v2 matches a v1 request under matchPolicy Equivalent (as the
// v2 resource and kind), and not under Exact; exclusions too.
func TestMatchEquivalent(t *testing.T) {
	all := []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll}
	v2 := []admissionregistrationv1.NamedRuleWithOperations{rule(all, []string{"example.com"}, []string{"v2"}, []string{"widgets"}, "*")}
	equivalent, exact := admissionregistrationv1.Equivalent, admissionregistrationv1.Exact
	a := &admission.Attributes{Name: "w", Namespace: "ns", Operation: admission.Create,
		Resource: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"},
		Kind:     schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"},
		Object:   &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget"}}}
	tests := []struct {
		name        string
		mr          admissionregistrationv1.MatchResources
		want        bool
		wantVersion string
	}{
		{"equivalent", admissionregistrationv1.MatchResources{ResourceRules: v2, MatchPolicy: &equivalent}, true, "v2"},
		{"exact", admissionregistrationv1.MatchResources{ResourceRules: v2, MatchPolicy: &exact}, false, ""},
		{"no rules: the request's own", admissionregistrationv1.MatchResources{MatchPolicy: &equivalent}, true, "v1"},
		{"excluded as an equivalent", admissionregistrationv1.MatchResources{ExcludeResourceRules: v2, MatchPolicy: &equivalent}, false, ""},
	}
	m := &Matcher{Equivalents: widgetMapper{}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := m.MatchFor(context.Background(), a, &tt.mr)
			if err != nil {
				t.Fatal(err)
			}
			if got.OK != tt.want || got.OK && (got.Resource.Version != tt.wantVersion || got.Kind.Version != tt.wantVersion) {
				t.Errorf("MatchFor = %+v, want %v in %s", got, tt.want, tt.wantVersion)
			}
		})
	}
}
