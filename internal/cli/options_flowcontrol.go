package cli

import (
	"fmt"

	"github.com/kapi-dev/kapi/internal/controlplane"
)

// flowControlOptions is kube-apiserver's --enable-priority-and-fairness.
// It sits with the in-flight limits it replaces: they size API Priority
// and Fairness when it is on and apply directly when it is off.
type flowControlOptions struct {
	// DisablePriorityAndFairness is the flag negated, so the zero value
	// keeps upstream's default (on).
	DisablePriorityAndFairness bool
}

func (o *flowControlOptions) addFlags(sets *namedFlagSets) {
	fs := sets.FlagSet("features")
	enable := !o.DisablePriorityAndFairness
	fs.Var(newNegatedBool(&o.DisablePriorityAndFairness), "enable-priority-and-fairness", "If true, replace the max-in-flight handler with an enhanced one that queues and dispatches with priority and fairness")
	fs.Lookup("enable-priority-and-fairness").DefValue = fmt.Sprint(enable)
	fs.Lookup("enable-priority-and-fairness").NoOptDefVal = "true"
}

// validate refuses a configuration APF cannot size: it divides the sum
// of the two in-flight limits among the priority levels.
func (o *flowControlOptions) validate(maxReadOnly, maxMutating int) []error {
	if o.DisablePriorityAndFairness || maxReadOnly+maxMutating > 0 {
		return nil
	}
	return []error{fmt.Errorf("--max-requests-inflight=%d plus --max-mutating-requests-inflight=%d must be positive with --enable-priority-and-fairness=true", maxReadOnly, maxMutating)}
}

func (o *flowControlOptions) fill(c *controlplane.Config) {
	c.DisablePriorityAndFairness = o.DisablePriorityAndFairness
}

// negatedBool is a pflag.Value storing the opposite of the flag.
type negatedBool struct{ p *bool }

func newNegatedBool(p *bool) *negatedBool { return &negatedBool{p} }

func (b *negatedBool) String() string {
	if b == nil || b.p == nil {
		return "true"
	}
	return fmt.Sprint(!*b.p)
}

func (b *negatedBool) Set(s string) error {
	var v bool
	switch s {
	case "true", "1", "t", "T", "TRUE", "True":
		v = true
	case "false", "0", "f", "F", "FALSE", "False":
		v = false
	default:
		return fmt.Errorf("invalid boolean %q", s)
	}
	*b.p = !v
	return nil
}

func (b *negatedBool) Type() string { return "bool" }
