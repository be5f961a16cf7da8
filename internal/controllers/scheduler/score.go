package scheduler

import (
	"math"

	corev1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
)

const maxNodeScore = 100

// Upstream's default score plugin weights.
const (
	weightTaintToleration    = 3
	weightNodeAffinity       = 2
	weightPodTopologySpread  = 2
	weightInterPodAffinity   = 2
	weightLeastAllocated     = 1
	weightBalancedAllocation = 1
)

type nodeScore struct {
	name  string
	score int64
}

// prioritize scores the feasible nodes with each plugin, normalises each
// plugin's scores to 0-100 and sums them with upstream's weights.
func (s *Scheduler) prioritize(st *cycleState, feasible, all []*nodeInfo) []nodeScore {
	total := make([]int64, len(feasible))
	raw := make([]int64, len(feasible))
	addNormalized := func(weight int64, normalize func([]int64)) {
		normalize(raw)
		for i := range raw {
			total[i] += weight * raw[i]
			raw[i] = 0
		}
	}
	// TaintToleration: fewer untolerated PreferNoSchedule taints is better.
	prefer := preferNoScheduleTolerations(st.pod.Spec.Tolerations)
	for i, n := range feasible {
		raw[i] = countIntolerablePreferNoSchedule(n.node.Spec.Taints, prefer)
	}
	addNormalized(weightTaintToleration, func(v []int64) { defaultNormalize(v, true) })
	// NodeAffinity: weights of the matching preferred terms.
	if a := st.pod.Spec.Affinity; a != nil && a.NodeAffinity != nil && len(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0 {
		if terms, err := nodeaffinity.NewPreferredSchedulingTerms(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution); err == nil {
			for i, n := range feasible {
				raw[i] = terms.Score(n.node)
			}
		}
		addNormalized(weightNodeAffinity, func(v []int64) { defaultNormalize(v, false) })
	}
	s.scoreSpread(st, feasible, all, raw)
	addNormalized(weightPodTopologySpread, func([]int64) {})
	if scores := s.preScoreInterPod(st, all); scores != nil {
		for i, n := range feasible {
			raw[i] = scoreInterPod(scores, n)
		}
		addNormalized(weightInterPodAffinity, minMaxNormalize)
	}
	for i, n := range feasible {
		raw[i] = leastAllocated(st.info, n)
	}
	addNormalized(weightLeastAllocated, func([]int64) {})
	if !st.info.req.isZero() {
		for i, n := range feasible {
			raw[i] = balancedAllocation(st.info, n)
		}
		addNormalized(weightBalancedAllocation, func([]int64) {})
	}
	out := make([]nodeScore, len(feasible))
	for i, n := range feasible {
		out[i] = nodeScore{name: n.node.Name, score: total[i]}
	}
	return out
}

func preferNoScheduleTolerations(ts []corev1.Toleration) []corev1.Toleration {
	var out []corev1.Toleration
	for _, t := range ts {
		if t.Effect == "" || t.Effect == corev1.TaintEffectPreferNoSchedule {
			out = append(out, t)
		}
	}
	return out
}

func countIntolerablePreferNoSchedule(taints []corev1.Taint, tolerations []corev1.Toleration) int64 {
	var c int64
	for i := range taints {
		if taints[i].Effect == corev1.TaintEffectPreferNoSchedule && !corev1helpers.TolerationsTolerateTaint(klog.Background(), tolerations, &taints[i], false) {
			c++
		}
	}
	return c
}

// defaultNormalize scales to 0-100 by the highest score, reversed for
// plugins where less is better.
func defaultNormalize(v []int64, reverse bool) {
	var max int64
	for _, x := range v {
		if x > max {
			max = x
		}
	}
	for i := range v {
		switch {
		case max == 0 && reverse:
			v[i] = maxNodeScore
		case max == 0:
			v[i] = 0
		case reverse:
			v[i] = maxNodeScore - maxNodeScore*v[i]/max
		default:
			v[i] = maxNodeScore * v[i] / max
		}
	}
}

// minMaxNormalize is InterPodAffinity's: the lowest sum is 0, the
// highest 100.
func minMaxNormalize(v []int64) {
	if len(v) == 0 {
		return
	}
	min, max := v[0], v[0]
	for _, x := range v {
		min, max = minInt(min, x), maxInt(max, x)
	}
	for i := range v {
		if max > min {
			v[i] = maxNodeScore * (v[i] - min) / (max - min)
		} else {
			v[i] = 0
		}
	}
}

func maxInt(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

// scoreSpread writes PodTopologySpread's normalised scores for the
// pod's ScheduleAnyway constraints into raw.
func (s *Scheduler) scoreSpread(st *cycleState, feasible, all []*nodeInfo, raw []int64) {
	soft, err := spreadConstraints(st.pod, corev1.ScheduleAnyway)
	requireAll := len(st.pod.Spec.TopologySpreadConstraints) > 0
	if !requireAll {
		soft = s.defaultSpreadConstraints(st.pod)
	}
	if err != nil || len(soft) == 0 {
		return
	}
	ss := newSoftSpread(st, soft, requireAll, feasible, all)
	ignored := make([]bool, len(feasible))
	var min, max int64 = math.MaxInt64, 0
	for i, n := range feasible {
		f, ok := ss.score(n)
		if !ok {
			ignored[i] = true
			continue
		}
		raw[i] = int64(math.Round(f))
		min, max = minInt(min, raw[i]), maxInt(max, raw[i])
	}
	for i := range raw {
		switch {
		case ignored[i]:
			raw[i] = 0
		case max == 0:
			raw[i] = maxNodeScore
		default:
			raw[i] = maxNodeScore * (max + min - raw[i]) / max
		}
	}
}

// leastAllocated favours nodes with more cpu and memory left, counting
// upstream's defaults for requests left out.
func leastAllocated(pi *podInfo, n *nodeInfo) int64 {
	score := func(requested, capacity int64) int64 {
		if capacity == 0 || requested > capacity {
			return 0
		}
		return (capacity - requested) * maxNodeScore / capacity
	}
	cpu := score(n.nonZero.milliCPU+pi.nonZero.milliCPU, n.allocatable.milliCPU)
	mem := score(n.nonZero.memory+pi.nonZero.memory, n.allocatable.memory)
	return (cpu + mem) / 2
}

// balancedAllocation favours nodes whose cpu and memory fractions stay
// close to each other once the pod is placed.
func balancedAllocation(pi *podInfo, n *nodeInfo) int64 {
	var fractions []float64
	add := func(requested, capacity int64) {
		if capacity == 0 {
			return
		}
		fractions = append(fractions, math.Min(float64(requested)/float64(capacity), 1))
	}
	add(n.requested.milliCPU+pi.req.milliCPU, n.allocatable.milliCPU)
	add(n.requested.memory+pi.req.memory, n.allocatable.memory)
	std := 0.0
	if len(fractions) == 2 {
		std = math.Abs((fractions[0] - fractions[1]) / 2)
	}
	return int64((1 - std) * maxNodeScore)
}
