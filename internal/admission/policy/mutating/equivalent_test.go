package mutating

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

// A policy for v2 widgets mutates a v1 request under matchPolicy
// Equivalent: it sees the object in v2 and request.kind v2, and the
// change lands in the request's v1 object; under Exact it does not apply.
func TestMatchPolicyEquivalent(t *testing.T) {
	for _, tt := range []struct {
		policy admissionregistrationv1.MatchPolicyType
		want   string
	}{
		{admissionregistrationv1.Equivalent, "example.com/v2 v2 v1"},
		{admissionregistrationv1.Exact, ""},
	} {
		t.Run(string(tt.policy), func(t *testing.T) {
			pol := mapPolicy("widgets", "", patch(`[JSONPatch{op: "add", path: "/metadata/annotations", value: {"seen": object.apiVersion + " " + request.kind.version + " " + request.requestKind.version}}]`))
			mp := tt.policy
			pol.Spec.MatchConstraints = &admissionregistrationv1.MatchResources{MatchPolicy: &mp, ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{"example.com"}, APIVersions: []string{"v2"}, Resources: []string{"widgets"}},
				},
			}}}
			p := newTestPlugin(t, pol, mapBinding("widgets"))
			p.MatchEquivalents(widgetMapper{}, nil)
			obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
				"metadata": map[string]any{"name": "w", "namespace": "ns"}}}
			a := &admission.Attributes{Name: "w", Namespace: "ns", Operation: admission.Create, Object: obj,
				Resource: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"},
				Kind:     schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"},
				UserInfo: &userInfo{"alice"}}
			if err := p.Admit(context.Background(), a); err != nil {
				t.Fatal(err)
			}
			if got := obj.GetAnnotations()["seen"]; got != tt.want || obj.GetAPIVersion() != "example.com/v1" {
				t.Errorf("annotation = %q (apiVersion %s), want %q", got, obj.GetAPIVersion(), tt.want)
			}
		})
	}
}
