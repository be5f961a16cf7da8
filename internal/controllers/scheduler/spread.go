package scheduler

import (
	"math"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// spreadConstraint is a TopologySpreadConstraint with its selector parsed
// and upstream's defaults applied (nodeAffinityPolicy Honor,
// nodeTaintsPolicy Ignore, minDomains 1).
type spreadConstraint struct {
	maxSkew       int32
	key           string
	selector      labels.Selector
	minDomains    int32
	honorAffinity bool
	honorTaints   bool
}

// spreadConstraints parses the pod's constraints with the given
// whenUnsatisfiable; matchLabelKeys become equality requirements on the
// pod's own values.
func spreadConstraints(pod *corev1.Pod, action corev1.UnsatisfiableConstraintAction) ([]spreadConstraint, error) {
	var out []spreadConstraint
	for _, c := range pod.Spec.TopologySpreadConstraints {
		if c.WhenUnsatisfiable != action {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(c.LabelSelector)
		if err != nil {
			return nil, err
		}
		for _, k := range c.MatchLabelKeys {
			if v, ok := pod.Labels[k]; ok {
				r, err := labels.NewRequirement(k, selection.Equals, []string{v})
				if err != nil {
					return nil, err
				}
				sel = sel.Add(*r)
			}
		}
		sc := spreadConstraint{maxSkew: c.MaxSkew, key: c.TopologyKey, selector: sel, minDomains: 1,
			honorAffinity: c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy == corev1.NodeInclusionPolicyHonor,
			honorTaints:   c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor}
		if c.MinDomains != nil {
			sc.minDomains = *c.MinDomains
		}
		out = append(out, sc)
	}
	return out, nil
}

// spreadState counts, per constraint, the pods matching its selector in
// each domain of the nodes it considers.
type spreadState struct {
	constraints []spreadConstraint
	counts      []map[string]int64 // per constraint: domain value -> pods
	minMatch    []int64
}

// eligible is whether a node counts for constraint c: it has every
// constraint's key and passes the node policies.
func eligible(st *cycleState, cs []spreadConstraint, c *spreadConstraint, n *nodeInfo) bool {
	for i := range cs {
		if _, ok := n.node.Labels[cs[i].key]; !ok {
			return false
		}
	}
	return included(st, c, n)
}

// countMatching counts the node's pods in ns matching sel that are not
// terminating.
func countMatching(n *nodeInfo, ns string, sel labels.Selector) int64 {
	var c int64
	for _, p := range n.pods {
		if p.pod.Namespace == ns && p.pod.DeletionTimestamp == nil && sel.Matches(labels.Set(p.pod.Labels)) {
			c++
		}
	}
	return c
}

func newSpreadState(st *cycleState, cs []spreadConstraint, nodes []*nodeInfo) *spreadState {
	ss := &spreadState{constraints: cs, counts: make([]map[string]int64, len(cs)), minMatch: make([]int64, len(cs))}
	for i := range cs {
		c := &cs[i]
		counts := map[string]int64{}
		for _, n := range nodes {
			if !eligible(st, cs, c, n) {
				continue
			}
			counts[n.node.Labels[c.key]] += countMatching(n, st.pod.Namespace, c.selector)
		}
		ss.counts[i] = counts
		min := int64(math.MaxInt64)
		for _, v := range counts {
			min = minInt(min, v)
		}
		if int32(len(counts)) < c.minDomains || len(counts) == 0 {
			min = 0
		}
		ss.minMatch[i] = min
	}
	return ss
}

func minInt(a, b int64) int64 {
	if a < b {
		return a
	}
	return b
}

// filterSpread is PodTopologySpread's filter for DoNotSchedule
// constraints: placing the pod must keep each skew within maxSkew.
func filterSpread(st *cycleState, n *nodeInfo) *status {
	ss := st.hardSpread
	if ss == nil {
		return nil
	}
	for i := range ss.constraints {
		c := &ss.constraints[i]
		v, ok := n.node.Labels[c.key]
		if !ok {
			return reject(unresolvable, reasonSpreadMissingLabel)
		}
		self := int64(0)
		if c.selector.Matches(labels.Set(st.pod.Labels)) {
			self = 1
		}
		if ss.counts[i][v]+self-ss.minMatch[i] > int64(c.maxSkew) {
			return reject(unschedulable, reasonSpread)
		}
	}
	return nil
}

// softSpread is PodTopologySpread's scoring state for ScheduleAnyway
// constraints over the nodes that passed the filters. requireAll is false
// only for the system default constraints: a node without one of their
// keys is scored on the others instead of being left out.
type softSpread struct {
	*spreadState
	weights    []float64
	requireAll bool
}

func newSoftSpread(st *cycleState, cs []spreadConstraint, requireAll bool, feasible, all []*nodeInfo) *softSpread {
	ss := &softSpread{spreadState: &spreadState{constraints: cs, counts: make([]map[string]int64, len(cs))}, weights: make([]float64, len(cs)), requireAll: requireAll}
	for i := range cs {
		c := &cs[i]
		domains := map[string]int64{}
		for _, n := range feasible {
			if v, ok := n.node.Labels[c.key]; ok && (!requireAll || hasKeys(n, cs)) {
				domains[v] = 0
			}
		}
		for _, n := range all {
			if requireAll && !hasKeys(n, cs) {
				continue
			}
			v, ok := n.node.Labels[c.key]
			if !ok {
				continue
			}
			if _, counted := domains[v]; counted && included(st, c, n) {
				domains[v] += countMatching(n, st.pod.Namespace, c.selector)
			}
		}
		ss.counts[i] = domains
		ss.weights[i] = math.Log(float64(len(domains) + 2))
	}
	return ss
}

// included applies a constraint's node inclusion policies.
func included(st *cycleState, c *spreadConstraint, n *nodeInfo) bool {
	if c.honorAffinity {
		if ok, _ := st.requiredNodeAffinity.Match(n.node); !ok {
			return false
		}
	}
	return !c.honorTaints || filterTaints(st, n) == nil
}

func hasKeys(n *nodeInfo, cs []spreadConstraint) bool {
	for i := range cs {
		if _, ok := n.node.Labels[cs[i].key]; !ok {
			return false
		}
	}
	return true
}

// score is lower for emptier domains; ok is false for a node upstream
// leaves out of the normalisation with score 0.
func (ss *softSpread) score(n *nodeInfo) (float64, bool) {
	if ss.requireAll && !hasKeys(n, ss.constraints) {
		return 0, false
	}
	var s float64
	for i := range ss.constraints {
		c := &ss.constraints[i]
		v, ok := n.node.Labels[c.key]
		if !ok {
			continue
		}
		s += float64(ss.counts[i][v])*ss.weights[i] + float64(c.maxSkew-1)
	}
	return s, true
}
