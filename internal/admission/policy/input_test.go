package policy

import (
	"context"
	"strings"
	"testing"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/auth/user"
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
}

// The request variable has the fields upstream's unstructured form of an
// AdmissionRequest has: options always (null without an options object,
// as for a connect), name, namespace, subresources and the user's fields
// only when set.
func TestRequestVariableFields(t *testing.T) {
	env, err := Env(EnvOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pods := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	nodes := schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
	connect := &admission.Attributes{Operation: admission.Connect, Resource: pods, Subresource: "exec", Name: "p", Namespace: "ns",
		UserInfo: &user.DefaultInfo{Name: "alice"}}
	clusterCreate := &admission.Attributes{Operation: admission.Create, Resource: nodes, UserInfo: &user.DefaultInfo{},
		Options: &metav1.CreateOptions{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "CreateOptions"}}}
	tests := []struct {
		name string
		a    *admission.Attributes
		expr string
		want any // a value, or an error message
	}{
		{"connect options are null", connect, "request.options == null", true},
		{"connect has options", connect, "has(request.options)", true},
		{"connect subresource", connect, "request.subResource + '/' + request.requestSubResource", "exec/exec"},
		{"connect name", connect, "request.namespace + '/' + request.name", "ns/p"},
		{"create options kind", clusterCreate, "request.options.kind", "CreateOptions"},
		{"cluster-scoped has no namespace", clusterCreate, "has(request.namespace)", false},
		{"cluster-scoped namespace is no key", clusterCreate, "request.namespace", "no such key: namespace"},
		{"no name", clusterCreate, "has(request.name)", false},
		{"no subresource", clusterCreate, "has(request.subResource) || has(request.requestSubResource)", false},
		{"empty user", clusterCreate, "has(request.userInfo.username) || has(request.userInfo.uid) || has(request.userInfo.groups)", false},
		{"user name", connect, "request.userInfo.username", "alice"},
		{"dry run", connect, "request.dryRun", false},
		{"operation", connect, "request.operation", "CONNECT"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := Compile(env, tc.expr)
			if x.Err != nil {
				t.Fatal(x.Err)
			}
			a := tc.a
			ev := NewEvaluation(&Input{Request: func() ref.Val { return types.NewStringInterfaceMap(types.DefaultTypeAdapter, Request(a)) }}, nil, RuntimeCELCostBudget)
			defer ev.Close()
			v, err := ev.Eval(context.Background(), x)
			if msg, ok := tc.want.(string); ok && err != nil {
				if !strings.Contains(err.Error(), msg) {
					t.Fatalf("error %v, want %q", err, msg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if v.Value() != tc.want {
				t.Fatalf("%s = %v, want %v", tc.expr, v.Value(), tc.want)
			}
		})
	}
}
