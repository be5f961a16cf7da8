package validating

import (
	"context"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

// widgets are served in v1 and v2 from one storage.
type widgetMapper struct{}

func (widgetMapper) EquivalentResources(gvr schema.GroupVersionResource, _ string) []schema.GroupVersionResource {
	return []schema.GroupVersionResource{gvr.GroupResource().WithVersion("v1"), gvr.GroupResource().WithVersion("v2")}
}

func (widgetMapper) KindFor(gvr schema.GroupVersionResource, _ string) (schema.GroupVersionKind, bool) {
	return gvr.GroupVersion().WithKind("Widget"), true
}

// A policy for v2 widgets sees a v1 request under matchPolicy Equivalent,
// with the object in v2 and request.kind the v2 kind (requestKind the
// request's own), as upstream; under Exact it does not apply.
func TestMatchPolicyEquivalent(t *testing.T) {
	expr := `object.apiVersion == "example.com/v2" && request.kind.version == "v2" && request.resource.version == "v2" && request.requestKind.version == "v1" && object.spec.size < 3`
	for _, tt := range []struct {
		policy  admissionregistrationv1.MatchPolicyType
		wantErr string
	}{
		{admissionregistrationv1.Equivalent, "failed expression"},
		{admissionregistrationv1.Exact, ""},
	} {
		t.Run(string(tt.policy), func(t *testing.T) {
			mp := tt.policy
			p := newTestPlugin(t, vap("widgets", func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
				s.MatchConstraints = &admissionregistrationv1.MatchResources{MatchPolicy: &mp, ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
						Rule:       admissionregistrationv1.Rule{APIGroups: []string{"example.com"}, APIVersions: []string{"v2"}, Resources: []string{"widgets"}},
					},
				}}}
				s.Validations = []admissionregistrationv1.Validation{{Expression: "!(" + expr + ")"}}
			}), binding("b", "widgets"))
			p.MatchEquivalents(widgetMapper{}, nil)
			obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
				"metadata": map[string]any{"name": "w", "namespace": "ns"}, "spec": map[string]any{"size": int64(1)}}}
			a := &admission.Attributes{Name: "w", Namespace: "ns", Operation: admission.Create, Object: obj,
				Resource: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"},
				Kind:     schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"},
				UserInfo: &user.DefaultInfo{Name: "alice"}}
			err := p.Validate(context.Background(), a)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("Validate = %v, want %q", err, tt.wantErr)
			}
			if obj.GetAPIVersion() != "example.com/v1" {
				t.Error("the request's own object was changed")
			}
		})
	}
}
