package admission

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// countingPlugin counts its calls per round.
type countingPlugin struct{ rounds []bool }

func (p *countingPlugin) Admit(_ context.Context, a *Attributes) error {
	p.rounds = append(p.rounds, a.Reinvocation.IsReinvoke())
	return nil
}

// changingHook stands for a webhook: it changes the object in the first
// round and asks for a second one.
type changingHook struct{ calls int }

func (h *changingHook) Admit(_ context.Context, a *Attributes) error {
	h.calls++
	if !a.Reinvocation.IsReinvoke() {
		a.Object.(*corev1.ConfigMap).Labels = map[string]string{"by": "hook"}
		a.Reinvocation.SetShouldReinvoke()
	}
	return nil
}

func TestChainReinvokesBuiltinPlugins(t *testing.T) {
	tests := []struct {
		name       string
		hookWrites bool
		wantRounds []bool
	}{
		{"a later change re-runs the built-in plugin", true, []bool{false, true}},
		{"no change, one round", false, []bool{false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			builtin := &countingPlugin{}
			chain := Chain{builtin}
			if tt.hookWrites {
				chain = append(chain, &changingHook{})
			}
			a := &Attributes{Operation: Create, Object: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}}
			if err := chain.Admit(context.Background(), a); err != nil {
				t.Fatal(err)
			}
			if len(builtin.rounds) != len(tt.wantRounds) {
				t.Fatalf("built-in rounds = %v, want %v", builtin.rounds, tt.wantRounds)
			}
			for i := range tt.wantRounds {
				if builtin.rounds[i] != tt.wantRounds[i] {
					t.Fatalf("built-in rounds = %v, want %v", builtin.rounds, tt.wantRounds)
				}
			}
			if a.Reinvocation != nil {
				t.Error("the reinvocation context outlived the call")
			}
		})
	}
}

func TestReinvokedSelectsHooks(t *testing.T) {
	a := &Attributes{Object: &corev1.ConfigMap{}, Reinvocation: &Reinvocation{}}
	r := ReinvokedFor(a, "p")
	r.Ran("first") // IfNeeded, ran before a change
	r.Changed()    // a later hook changed the object
	r.Ran("last")  // IfNeeded, ran after the last change
	r.Done(a)
	a.Reinvocation.reinvoke = true
	r = ReinvokedFor(a, "p")
	if r.Skip(a, "first") || !r.Skip(a, "last") || !r.Skip(a, "never") {
		t.Errorf("second round: first skipped=%v last skipped=%v", r.Skip(a, "first"), r.Skip(a, "last"))
	}
	// A built-in plugin changed the object in the second round before
	// this plugin ran: "last" is due too.
	a.Object.(*corev1.ConfigMap).Labels = map[string]string{"x": "y"}
	r = ReinvokedFor(a, "p")
	if r.Skip(a, "last") {
		t.Error("a change by a built-in plugin did not make the last hook due")
	}
}
