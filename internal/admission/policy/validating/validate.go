package validating

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/cel-go/common/types"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/kapi-dev/kapi/internal/admission/policy"
)

// decision is the outcome of one validation (or of the whole evaluation
// when it failed as a whole).
type decision struct {
	deny    bool
	message string
	reason  metav1.StatusReason
	// index is the validation's index, for the audit annotation.
	index int
}

type auditAction int

const (
	auditExclude auditAction = iota
	auditPublish
	auditError
)

type auditResult struct {
	action auditAction
	key    string
	value  string
}

// result is one evaluation of a policy for one binding and parameter.
type result struct {
	decisions []decision
	audits    []auditResult
}

func (c *compiled) errorResult(msg string) result {
	if c.failurePolicy == admissionregistrationv1.Ignore {
		return result{}
	}
	return result{decisions: []decision{{deny: true, message: msg}}}
}

// validate evaluates the policy's matchConditions, validations and audit
// annotations for in, as upstream's validator does.
func (c *compiled) validate(ctx context.Context, in *policy.Input) result {
	if len(c.matchConditions) > 0 {
		ok, err := c.match(ctx, in)
		if err != nil {
			return c.errorResult(err.Error())
		}
		if !ok {
			return result{}
		}
	}
	ev := policy.NewEvaluation(in, c.vars, policy.RuntimeCELCostBudget)
	defer ev.Close()
	var res result // decisions are only made for failures: usually none
	for i := range c.validations {
		v := &c.validations[i]
		val, err := ev.Eval(ctx, v.expr)
		if errors.Is(err, policy.ErrOutOfBudget) {
			return c.errorResult(err.Error())
		}
		d := decision{index: i}
		switch {
		case err != nil:
			if c.failurePolicy == admissionregistrationv1.Ignore {
				continue
			}
			d.deny, d.message = true, err.Error()
		case val != types.True:
			d.deny = true
			d.reason = metav1.StatusReasonInvalid
			if v.spec.Reason != nil {
				d.reason = *v.spec.Reason
			}
			msg, err := c.message(ctx, ev, v)
			if err != nil {
				if c.failurePolicy == admissionregistrationv1.Ignore {
					continue
				}
				d.reason, d.message = "", "failed messageExpression: "+err.Error()
			} else {
				d.message = msg
			}
		default:
			continue
		}
		res.decisions = append(res.decisions, d)
	}
	if len(c.audits) > 0 {
		res.audits = c.auditAnnotations(ctx, in)
	}
	return res
}

// match evaluates matchConditions: any false excludes the request; errors
// (when nothing is false) are the failure policy's to judge.
func (c *compiled) match(ctx context.Context, in *policy.Input) (bool, error) {
	ev := policy.NewEvaluation(in, c.vars, policy.RuntimeCELCostBudgetMatchConditions)
	defer ev.Close()
	var errs []error
	for _, m := range c.matchConditions {
		val, err := ev.Eval(ctx, m.expr)
		if errors.Is(err, policy.ErrOutOfBudget) {
			if c.failurePolicy == admissionregistrationv1.Ignore {
				return false, nil
			}
			return false, err
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if val == types.False {
			return false, nil
		}
	}
	if len(errs) > 0 {
		if c.failurePolicy == admissionregistrationv1.Ignore {
			return false, nil
		}
		return false, utilerrors.NewAggregate(errs)
	}
	return true, nil
}

// message is a failed validation's message: messageExpression's result
// when it gives a usable one, else message, else the expression. Only
// running out of budget is an error; other messageExpression failures
// fall back.
func (c *compiled) message(ctx context.Context, ev *policy.Evaluation, v *validation) (string, error) {
	var msg string
	if v.msg != nil {
		val, err := ev.Eval(ctx, v.msg)
		if errors.Is(err, policy.ErrOutOfBudget) {
			return "", err
		}
		if err == nil {
			if s, ok := val.Value().(string); ok {
				s = strings.TrimSpace(s)
				if len(s) <= policy.MaxEvaluatedMessageExpressionSizeBytes && !strings.Contains(s, "\n") {
					msg = s
				}
			}
		}
	}
	if msg == "" {
		msg = strings.TrimSpace(v.spec.Message)
	}
	if msg == "" {
		msg = fmt.Sprintf("failed expression: %v", strings.TrimSpace(v.spec.Expression))
	}
	return msg, nil
}

func (c *compiled) auditAnnotations(ctx context.Context, in *policy.Input) []auditResult {
	ev := policy.NewEvaluation(in, c.vars, policy.RuntimeCELCostBudget)
	defer ev.Close()
	onError := auditError
	if c.failurePolicy == admissionregistrationv1.Ignore {
		onError = auditExclude
	}
	out := make([]auditResult, 0, len(c.audits))
	for _, a := range c.audits {
		r := auditResult{key: a.name}
		val, err := ev.Eval(ctx, a.expr)
		switch {
		case err != nil:
			r.action, r.value = onError, err.Error()
		case val.Type() == types.StringType:
			if s := strings.TrimSpace(val.Value().(string)); s != "" {
				r.action, r.value = auditPublish, s
			}
		case val.Type() == types.NullType:
		default:
			r.action = auditError
			r.value = fmt.Sprintf("valueExpression '%v' resulted in unsupported return type: %v. Return type must be either string or null.", a.expr.Source, val.Type())
		}
		out = append(out, r)
	}
	return out
}
