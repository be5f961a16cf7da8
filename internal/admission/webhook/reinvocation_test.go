package webhook

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kapi-dev/kapi/internal/admission"
)

// builtinStub stands for an in-tree mutating plugin: it counts its runs
// and may change the object in the second round.
type builtinStub struct {
	runs        int
	writeSecond bool
}

func (b *builtinStub) Admit(_ context.Context, a *admission.Attributes) error {
	b.runs++
	if b.writeSecond && a.Reinvocation.IsReinvoke() {
		cm := a.Object.(*corev1.ConfigMap)
		cm.Annotations = map[string]string{"builtin": "second-round"}
	}
	return nil
}

// Upstream re-runs the whole mutating half once when a webhook changed
// the object: every built-in plugin again, and the IfNeeded webhooks that
// ran before a change (including one made by a built-in plugin in the
// second round).
func TestChainReinvocation(t *testing.T) {
	tests := []struct {
		name         string
		hooks        []hookSpec
		writeSecond  bool
		wantBuiltin  int
		wantCalls    map[string]int
		wantAnnotate bool
	}{{
		name:        "a webhook's change re-runs the built-in plugins",
		hooks:       []hookSpec{{name: "d.example.com", path: "/data"}},
		wantBuiltin: 2,
		wantCalls:   map[string]int{"/data": 1},
	}, {
		name:        "no change, no second round",
		hooks:       []hookSpec{{name: "a.example.com", path: "/allow", reinvoke: true}},
		wantBuiltin: 1,
		wantCalls:   map[string]int{"/allow": 1},
	}, {
		name:        "an IfNeeded webhook whose own change was the last is not reinvoked",
		hooks:       []hookSpec{{name: "d.example.com", path: "/data", reinvoke: true}},
		wantBuiltin: 2,
		wantCalls:   map[string]int{"/data": 1},
	}, {
		name:         "a built-in plugin's change in the second round reinvokes IfNeeded webhooks",
		hooks:        []hookSpec{{name: "d.example.com", path: "/data", reinvoke: true}},
		writeSecond:  true,
		wantBuiltin:  2,
		wantCalls:    map[string]int{"/data": 2},
		wantAnnotate: true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.addMutating("a", tt.hooks...)
			builtin := &builtinStub{writeSecond: tt.writeSecond}
			chain := admission.Chain{builtin, f.mut}
			obj := configMap("cm", nil)
			if err := chain.Admit(context.Background(), createAttrs(obj)); err != nil {
				t.Fatal(err)
			}
			if builtin.runs != tt.wantBuiltin {
				t.Errorf("built-in plugin ran %d times, want %d", builtin.runs, tt.wantBuiltin)
			}
			for path, n := range tt.wantCalls {
				if got := len(f.callsTo(path)); got != n {
					t.Errorf("%s called %d times, want %d", path, got, n)
				}
			}
			if tt.wantAnnotate && obj.Annotations["builtin"] == "" {
				t.Errorf("object = %+v", obj)
			}
		})
	}
}
