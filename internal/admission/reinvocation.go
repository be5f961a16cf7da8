package admission

import (
	"context"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
)

// Reinvocation is the per-request state of the mutating half's second
// round, as kube-apiserver keeps it: when a webhook or a mutating policy
// changed the object, the whole mutating half runs once more (every
// built-in plugin again, and the webhooks and policies that asked for it
// with reinvocationPolicy IfNeeded).
type Reinvocation struct {
	reinvoke, should bool
	values           map[string]any
}

// IsReinvoke is true during the second round.
func (r *Reinvocation) IsReinvoke() bool { return r != nil && r.reinvoke }

// SetShouldReinvoke asks for a second round.
func (r *Reinvocation) SetShouldReinvoke() { r.should = true }

// ShouldReinvoke is true when some plugin asked for a second round.
func (r *Reinvocation) ShouldReinvoke() bool { return r.should }

// Value is a plugin's own state under key (its plugin name).
func (r *Reinvocation) Value(key string) any { return r.values[key] }

// SetValue stores a plugin's own state under key.
func (r *Reinvocation) SetValue(key string, v any) {
	if r.values == nil {
		r.values = map[string]any{}
	}
	r.values[key] = v
}

// Admit runs the mutating plugins, and once more when one of them asked
// for it. A caller that set a.Reinvocation (a plugin called on its own,
// or a nested chain) keeps its context.
func (c Chain) Admit(ctx context.Context, a *Attributes) error {
	if a.Reinvocation != nil {
		return c.admitOnce(ctx, a)
	}
	a.Reinvocation = &Reinvocation{}
	defer func() { a.Reinvocation = nil }()
	if err := c.admitOnce(ctx, a); err != nil {
		return err
	}
	if !a.Reinvocation.should {
		return nil
	}
	a.Reinvocation.reinvoke = true
	return c.admitOnce(ctx, a)
}

// Reinvoked is the state one plugin keeps across the two rounds to
// choose which of its hooks run again (upstream's per-plugin
// reinvocation context). Keys identify a hook, or an invocation.
type Reinvoked struct {
	last     runtime.Object
	previous map[string]bool // reinvocable hooks run since the last change
	again    map[string]bool // hooks to run in the second round
}

// ReinvokedFor is plugin's state in a's reinvocation context; on the
// second round, a change made since the plugin last ran (by a built-in
// plugin, say) makes every reinvocable hook it called eligible again.
func ReinvokedFor(a *Attributes, plugin string) *Reinvoked {
	r, _ := a.Reinvocation.Value(plugin).(*Reinvoked)
	if r == nil {
		r = &Reinvoked{}
		a.Reinvocation.SetValue(plugin, r)
	}
	if a.Reinvocation.IsReinvoke() && !equality.Semantic.DeepEqual(r.last, a.Object) {
		r.Changed()
	}
	return r
}

// Skip is true on the second round for a hook that need not run again.
func (r *Reinvoked) Skip(a *Attributes, key string) bool {
	return a.Reinvocation.IsReinvoke() && !r.again[key]
}

// Changed records that a hook changed the object: every reinvocable hook
// run before it becomes due for the second round.
func (r *Reinvoked) Changed() {
	if len(r.previous) == 0 {
		return
	}
	if r.again == nil {
		r.again = map[string]bool{}
	}
	for k := range r.previous {
		r.again[k] = true
	}
	r.previous = nil
}

// Ran records that a hook with reinvocationPolicy IfNeeded was called.
func (r *Reinvoked) Ran(key string) {
	if r.previous == nil {
		r.previous = map[string]bool{}
	}
	r.previous[key] = true
}

// Done remembers the object as the plugin left it.
func (r *Reinvoked) Done(a *Attributes) {
	if a.Object == nil {
		r.last = nil
		return
	}
	r.last = a.Object.DeepCopyObject()
}
