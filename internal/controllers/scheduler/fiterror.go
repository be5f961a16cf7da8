package scheduler

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// errNoNodes is upstream's error when the cluster has no node at all.
var errNoNodes = errors.New(messageNoNodes)

// Error is upstream's FailedScheduling message: "0/N nodes are
// available: " then each reason with the count of nodes giving it,
// sorted as strings, then the PostFilter (preemption) message.
func (f *fitError) Error() string {
	msg := fmt.Sprintf("0/%d nodes are available:", f.numAllNodes)
	counts := map[string]int{}
	for _, st := range f.statuses {
		for _, r := range st.reasons {
			counts[r]++
		}
	}
	hist := make([]string, 0, len(counts))
	for r, c := range counts {
		hist = append(hist, fmt.Sprintf("%d %s", c, r))
	}
	sort.Strings(hist)
	if len(hist) > 0 {
		msg += " " + strings.Join(hist, ", ") + "."
	}
	if f.postFilter != "" {
		msg += " " + f.postFilter
	}
	return msg
}

// preemptionMessage is what upstream's DefaultPreemption PostFilter says
// when it finds no victims. kapi does not preempt: a node rejected for a
// reason eviction cannot fix is "not helpful"; any other node reports no
// victims (the message upstream gives when no lower-priority pod would
// make room).
func (s *Scheduler) preemptionMessage(st *cycleState, nodes []*nodeInfo, fe *fitError) string {
	if p := st.pod.Spec.PreemptionPolicy; p != nil && *p == corev1.PreemptNever {
		return "preemption: " + messagePreemptionPolicyNever
	}
	pre := &fitError{numAllNodes: len(nodes), statuses: make(map[string]*status, len(nodes))}
	for _, n := range nodes {
		r := fe.statuses[n.node.Name]
		if r == nil || r.code == unresolvable {
			pre.statuses[n.node.Name] = &status{code: unresolvable, reasons: []string{reasonPreemptionNotHelpful}}
			continue
		}
		pre.statuses[n.node.Name] = &status{code: unresolvable, reasons: []string{reasonNoPreemptionVictims}}
	}
	return "preemption: " + pre.Error()
}
