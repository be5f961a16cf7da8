package mutating

import (
	"context"
	"errors"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/google/cel-go/common/types/ref"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/admission/policy"
)

// invokeAll runs the matched invocations in order, in the chain's first
// or second round, and returns errs with the policy errors added; a
// status error ends the run and is returned.
func (p *Plugin) invokeAll(ctx context.Context, a *admission.Attributes, ns ref.Val, invs []invocation, errs []policyError) ([]policyError, *apierrors.StatusError) {
	state := admission.ReinvokedFor(a, PluginName)
	defer state.Done(a)
	for _, inv := range invs {
		key := inv.key()
		if state.Skip(a, key) {
			continue
		}
		target, err := policy.AsMatched(a, inv.match, p.scheme)
		if err != nil {
			return errs, apierrors.NewInternalError(err)
		}
		changed, perr := p.invoke(ctx, target, a, ns, inv)
		if changed && target != a {
			if err := convertBack(target.Object, a, p.scheme); err != nil {
				return errs, apierrors.NewInternalError(err)
			}
		}
		if perr != nil {
			var se *apierrors.StatusError
			if errors.As(perr.err, &se) {
				return errs, se
			}
			errs = append(errs, *perr)
		}
		if changed {
			state.Changed()
			a.Reinvocation.SetShouldReinvoke()
		}
		if inv.h.compiled.reinvocation == admissionregistrationv1.IfNeededReinvocationPolicy {
			state.Ran(key)
		}
	}
	return errs, nil
}

// key identifies an invocation across rounds as upstream does: policy,
// binding and param.
func (inv invocation) key() string {
	var pns, pname any
	if md, ok := inv.param["metadata"].(map[string]any); ok {
		pns, pname = md["namespace"], md["name"]
	}
	return fmt.Sprintf("%s\x00%s\x00%v/%v", inv.h.policy.Name, inv.b.Name, pns, pname)
}
