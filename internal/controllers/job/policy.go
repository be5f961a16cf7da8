package job

import (
	"fmt"
	"slices"
	"sort"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/clock"
)

// failureMatch is what a failed Pod's match against the pod failure
// policy decides: a message when the Job must fail, whether the failure
// counts towards the back-off limits, and the action of the rule matched.
type failureMatch struct {
	failJob *string
	count   bool
	action  *batchv1.PodFailurePolicyAction
}

// matchFailurePolicy walks the rules in order; the first whose exit
// codes or Pod conditions match decides. No match counts the failure.
func matchFailurePolicy(policy *batchv1.PodFailurePolicy, pod *corev1.Pod) failureMatch {
	if policy == nil {
		return failureMatch{count: true}
	}
	for i, rule := range policy.Rules {
		action := rule.Action
		var msg string
		switch {
		case rule.OnExitCodes != nil:
			cs := matchExitCodes(&pod.Status, rule.OnExitCodes)
			if cs == nil {
				continue
			}
			msg = fmt.Sprintf("Container %s for pod %s/%s failed with exit code %v matching %v rule at index %d",
				cs.Name, pod.Namespace, pod.Name, cs.State.Terminated.ExitCode, action, i)
		case rule.OnPodConditions != nil:
			cond := matchPodConditions(&pod.Status, rule.OnPodConditions)
			if cond == nil {
				continue
			}
			msg = fmt.Sprintf("Pod %s/%s has condition %v matching %v rule at index %d", pod.Namespace, pod.Name, cond.Type, action, i)
		default:
			continue
		}
		switch action {
		case batchv1.PodFailurePolicyActionIgnore:
			return failureMatch{action: &action}
		case batchv1.PodFailurePolicyActionFailJob:
			return failureMatch{failJob: &msg, count: true, action: &action}
		case batchv1.PodFailurePolicyActionCount, batchv1.PodFailurePolicyActionFailIndex:
			return failureMatch{count: true, action: &action}
		}
	}
	return failureMatch{count: true}
}

// matchExitCodes finds a terminated container (regular first, then init)
// whose non-zero exit code satisfies req.
func matchExitCodes(status *corev1.PodStatus, req *batchv1.PodFailurePolicyOnExitCodesRequirement) *corev1.ContainerStatus {
	for _, list := range [][]corev1.ContainerStatus{status.ContainerStatuses, status.InitContainerStatuses} {
		for i := range list {
			cs := &list[i]
			t := cs.State.Terminated
			if t == nil || t.ExitCode == 0 || (req.ContainerName != nil && *req.ContainerName != cs.Name) {
				continue
			}
			in := slices.Contains(req.Values, t.ExitCode)
			if (req.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn && in) || (req.Operator == batchv1.PodFailurePolicyOnExitCodesOpNotIn && !in) {
				return cs
			}
		}
	}
	return nil
}

func matchPodConditions(status *corev1.PodStatus, patterns []batchv1.PodFailurePolicyOnPodConditionsPattern) *corev1.PodCondition {
	for i := range status.Conditions {
		c := &status.Conditions[i]
		for _, p := range patterns {
			if c.Type == p.Type && c.Status == p.Status {
				return c
			}
		}
	}
	return nil
}

// matchSuccessPolicy reports the first success policy rule the succeeded
// indexes satisfy, with upstream's message.
func matchSuccessPolicy(policy *batchv1.SuccessPolicy, completions int32, succeeded intervals) (string, bool) {
	if policy == nil || len(succeeded) == 0 {
		return "", false
	}
	for i, rule := range policy.Rules {
		matched := false
		if rule.SucceededIndexes != nil {
			required := parseIndexes(*rule.SucceededIndexes, int(completions))
			if len(required) == 0 {
				continue
			}
			got := required.overlap(succeeded)
			matched = got == required.total() || (rule.SucceededCount != nil && got >= int(*rule.SucceededCount))
		} else if rule.SucceededCount != nil {
			matched = succeeded.total() >= int(*rule.SucceededCount)
		}
		if matched {
			return fmt.Sprintf("Matched rules at index %d", i), true
		}
	}
	return "", false
}

// Pod failure back-off: 10s doubling per failure since the last success,
// capped at 10 minutes, as upstream.
const (
	defaultPodFailureBackoff = 10 * time.Second
	maxPodFailureBackoff     = 10 * time.Minute
)

// backoffRecord counts a Job's Pod failures since its last success.
type backoffRecord struct {
	failuresAfterLastSuccess int
	lastFailureTime          *time.Time
}

// next folds newly finished Pods into the record.
func (r backoffRecord) next(clk clock.PassiveClock, succeeded, failed []*corev1.Pod) backoffRecord {
	if len(succeeded) == 0 && len(failed) == 0 {
		return r
	}
	times := func(pods []*corev1.Pod) []time.Time {
		out := make([]time.Time, len(pods))
		for i, p := range pods {
			out[i] = finishTime(clk, p)
		}
		sort.Slice(out, func(a, b int) bool { return out[a].Before(out[b]) })
		return out
	}
	ft := times(failed)
	if len(succeeded) == 0 {
		last := ft[len(ft)-1]
		return backoffRecord{failuresAfterLastSuccess: r.failuresAfterLastSuccess + len(ft), lastFailureTime: &last}
	}
	st := times(succeeded)
	lastSuccess := st[len(st)-1]
	out := backoffRecord{}
	for i := len(ft) - 1; i >= 0 && ft[i].After(lastSuccess); i-- {
		if out.lastFailureTime == nil {
			t := ft[i]
			out.lastFailureTime = &t
		}
		out.failuresAfterLastSuccess++
	}
	return out
}

// remaining is how long Pod creation still waits.
func (r backoffRecord) remaining(clk clock.PassiveClock) time.Duration {
	if r.failuresAfterLastSuccess == 0 || r.lastFailureTime == nil {
		return 0
	}
	d := defaultPodFailureBackoff
	for i := 1; i < r.failuresAfterLastSuccess; i++ {
		d *= 2
		if d >= maxPodFailureBackoff {
			d = maxPodFailureBackoff
			break
		}
	}
	if elapsed := clk.Since(*r.lastFailureTime); elapsed < d {
		return d - elapsed
	}
	return 0
}

// finishTime is when a Pod finished: its last container's termination,
// else its Ready=False transition, else its deletion, else now.
func finishTime(clk clock.PassiveClock, p *corev1.Pod) time.Time {
	var t time.Time
	for _, list := range [][]corev1.ContainerStatus{p.Status.ContainerStatuses, p.Status.InitContainerStatuses} {
		for _, cs := range list {
			if term := cs.State.Terminated; term != nil && term.FinishedAt.After(t) {
				t = term.FinishedAt.Time
			}
		}
	}
	if !t.IsZero() {
		return t
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionFalse && !c.LastTransitionTime.IsZero() {
			return c.LastTransitionTime.Time
		}
	}
	if p.DeletionTimestamp != nil {
		return p.DeletionTimestamp.Time
	}
	return clk.Now()
}
