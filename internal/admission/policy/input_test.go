package policy

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/admission"
)

// request.options is the operation's options object, as upstream puts
// it in the request variable.
func TestRequestOptions(t *testing.T) {
	bg := metav1.DeletePropagationBackground
	a := &admission.Attributes{Operation: admission.Delete, Options: &metav1.DeleteOptions{
		TypeMeta:          metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "DeleteOptions"},
		PropagationPolicy: &bg,
	}}
	opts, ok := Request(a)["options"].(map[string]any)
	if !ok || opts["kind"] != "DeleteOptions" || opts["propagationPolicy"] != "Background" {
		t.Fatalf("request.options = %#v", Request(a)["options"])
	}
	if _, ok := Request(&admission.Attributes{Operation: admission.Connect})["options"]; ok {
		t.Error("options set without an options object")
	}
}
