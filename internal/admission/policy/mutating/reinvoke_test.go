package mutating

import (
	"context"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/admission"
)

// laterHook stands for a mutating webhook after the policies: it sets the
// label "src" once and asks for the second round, as webhooks do.
type laterHook struct{}

func (laterHook) Admit(_ context.Context, a *admission.Attributes) error {
	cm := a.Object.(*corev1.ConfigMap)
	if cm.Labels["src"] == "" {
		cm.Labels = map[string]string{"src": "hook", "copy": cm.Labels["copy"]}
		a.Reinvocation.SetShouldReinvoke()
	}
	return nil
}

// runCounter stands for a built-in mutating plugin.
type runCounter struct{ runs int }

func (r *runCounter) Admit(context.Context, *admission.Attributes) error { r.runs++; return nil }

// A policy with reinvocationPolicy IfNeeded runs again, in the chain's
// second round, when a later plugin changed the object; one with Never
// does not; and a policy's change re-runs the built-in plugins.
func TestChainReinvocation(t *testing.T) {
	copyExpr := `Object{metadata: Object.metadata{labels: {"copy": has(object.metadata.labels) && "src" in object.metadata.labels ? object.metadata.labels["src"] : "none"}}}`
	tests := []struct {
		name     string
		policy   admissionregistrationv1.ReinvocationPolicyType
		wantCopy string
	}{
		{"IfNeeded sees the webhook's change", admissionregistrationv1.IfNeededReinvocationPolicy, "hook"},
		{"Never does not", admissionregistrationv1.NeverReinvocationPolicy, "none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newTestPlugin(t, mapPolicy("copy", tt.policy, apply(copyExpr)), mapBinding("copy"))
			builtin := &runCounter{}
			chain := admission.Chain{builtin, p, laterHook{}}
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns", Labels: map[string]string{}}}
			a := &admission.Attributes{
				Name: "c", Namespace: "ns", Operation: admission.Create,
				Resource: corev1.SchemeGroupVersion.WithResource("configmaps"),
				Kind:     corev1.SchemeGroupVersion.WithKind("ConfigMap"),
				Object:   cm, UserInfo: &userInfo{"alice"},
			}
			if err := chain.Admit(context.Background(), a); err != nil {
				t.Fatal(err)
			}
			if got := cm.Labels["copy"]; got != tt.wantCopy {
				t.Errorf("copy label = %q, want %q (labels %v)", got, tt.wantCopy, cm.Labels)
			}
			if builtin.runs != 2 {
				t.Errorf("built-in plugin ran %d times, want 2", builtin.runs)
			}
		})
	}
}
