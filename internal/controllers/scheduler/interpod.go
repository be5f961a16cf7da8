package scheduler

import (
	"k8s.io/apimachinery/pkg/labels"
)

// topologyPair is one topology domain: a node label key and value.
type topologyPair struct{ key, value string }

// interPodState is InterPodAffinity's pre-filter work for one pod,
// counted once over every assigned pod.
type interPodState struct {
	// existingAnti counts domains where an existing pod's required
	// anti-affinity selects the incoming pod.
	existingAnti map[topologyPair]int
	// affinity counts domains holding pods that match all the incoming
	// pod's required affinity terms; anti those matching an anti term.
	affinity, anti map[topologyPair]int
}

// preFilterInterPod scans the assigned pods only when the incoming pod
// has required terms or some existing pod has required anti-affinity.
func (s *Scheduler) preFilterInterPod(st *cycleState, nodes []*nodeInfo) {
	pi := st.info
	if len(pi.requiredAffinity)+len(pi.requiredAntiAffinity) == 0 && s.cache.withAntiAffinity == 0 {
		return
	}
	ps := &interPodState{existingAnti: map[topologyPair]int{}, affinity: map[topologyPair]int{}, anti: map[topologyPair]int{}}
	incomingNS := s.namespaceLabels(pi.pod.Namespace)
	for _, n := range nodes {
		if n.withAntiAffinity > 0 {
			for _, ex := range n.pods {
				for i := range ex.requiredAntiAffinity {
					t := &ex.requiredAntiAffinity[i]
					if v, ok := n.node.Labels[t.topologyKey]; ok && t.matches(pi.pod, incomingNS) {
						ps.existingAnti[topologyPair{t.topologyKey, v}]++
					}
				}
			}
		}
		if len(pi.requiredAffinity)+len(pi.requiredAntiAffinity) == 0 {
			continue
		}
		for _, ex := range n.pods {
			exNS := s.namespaceLabels(ex.pod.Namespace)
			if len(pi.requiredAffinity) > 0 && matchesAll(pi.requiredAffinity, ex, exNS) {
				for _, t := range pi.requiredAffinity {
					if v, ok := n.node.Labels[t.topologyKey]; ok {
						ps.affinity[topologyPair{t.topologyKey, v}]++
					}
				}
			}
			for i := range pi.requiredAntiAffinity {
				t := &pi.requiredAntiAffinity[i]
				if v, ok := n.node.Labels[t.topologyKey]; ok && t.matches(ex.pod, exNS) {
					ps.anti[topologyPair{t.topologyKey, v}]++
				}
			}
		}
	}
	st.interPod = ps
}

func matchesAll(terms []affinityTerm, pi *podInfo, nsLabels labels.Set) bool {
	for i := range terms {
		if !terms[i].matches(pi.pod, nsLabels) {
			return false
		}
	}
	return true
}

// filterInterPod is InterPodAffinity's filter, in upstream's order:
// the pod's affinity, its anti-affinity, then existing pods'
// anti-affinity.
func (s *Scheduler) filterInterPod(st *cycleState, n *nodeInfo) *status {
	ps := st.interPod
	if ps == nil {
		return nil
	}
	if !s.satisfiesAffinity(st, n) {
		return reject(unresolvable, reasonPodAffinity)
	}
	for _, t := range st.info.requiredAntiAffinity {
		if v, ok := n.node.Labels[t.topologyKey]; ok && ps.anti[topologyPair{t.topologyKey, v}] > 0 {
			return reject(unschedulable, reasonPodAntiAffinity)
		}
	}
	if len(ps.existingAnti) > 0 {
		for k, v := range n.node.Labels {
			if ps.existingAnti[topologyPair{k, v}] > 0 {
				return reject(unschedulable, reasonExistingAntiAffinity)
			}
		}
	}
	return nil
}

// satisfiesAffinity: every term's domain on the node holds a matching
// pod; a pod matching its own terms may start a group when no pod in the
// cluster matches them yet, on a node that has all the topology keys.
func (s *Scheduler) satisfiesAffinity(st *cycleState, n *nodeInfo) bool {
	terms := st.info.requiredAffinity
	if len(terms) == 0 {
		return true
	}
	exist := true
	for _, t := range terms {
		v, ok := n.node.Labels[t.topologyKey]
		if !ok {
			return false
		}
		if st.interPod.affinity[topologyPair{t.topologyKey, v}] <= 0 {
			exist = false
		}
	}
	if exist {
		return true
	}
	return len(st.interPod.affinity) == 0 && matchesAll(terms, st.info, s.namespaceLabels(st.pod.Namespace))
}

// hardPodAffinityWeight is upstream's default weight of an existing
// pod's required affinity when scoring the pods it selects.
const hardPodAffinityWeight = 1

// preScoreInterPod sums preferred (anti-)affinity weights per domain:
// the incoming pod's preferred terms over existing pods, and existing
// pods' terms that select the incoming pod.
func (s *Scheduler) preScoreInterPod(st *cycleState, nodes []*nodeInfo) map[string]map[string]int64 {
	pi := st.info
	incoming := len(pi.preferredAffinity)+len(pi.preferredAntiAffinity) > 0
	if !incoming && s.cache.withAffinity == 0 {
		return nil
	}
	scores := map[string]map[string]int64{}
	add := func(n *nodeInfo, key string, w int64) {
		v, ok := n.node.Labels[key]
		if !ok || w == 0 {
			return
		}
		if scores[key] == nil {
			scores[key] = map[string]int64{}
		}
		scores[key][v] += w
	}
	incomingNS := s.namespaceLabels(pi.pod.Namespace)
	for _, n := range nodes {
		if !incoming && n.withAffinity == 0 {
			continue
		}
		for _, ex := range n.pods {
			if incoming {
				exNS := s.namespaceLabels(ex.pod.Namespace)
				for _, t := range pi.preferredAffinity {
					if t.matches(ex.pod, exNS) {
						add(n, t.topologyKey, int64(t.weight))
					}
				}
				for _, t := range pi.preferredAntiAffinity {
					if t.matches(ex.pod, exNS) {
						add(n, t.topologyKey, -int64(t.weight))
					}
				}
			}
			for _, t := range ex.requiredAffinity {
				if t.matches(pi.pod, incomingNS) {
					add(n, t.topologyKey, hardPodAffinityWeight)
				}
			}
			for _, t := range ex.preferredAffinity {
				if t.matches(pi.pod, incomingNS) {
					add(n, t.topologyKey, int64(t.weight))
				}
			}
			for _, t := range ex.preferredAntiAffinity {
				if t.matches(pi.pod, incomingNS) {
					add(n, t.topologyKey, -int64(t.weight))
				}
			}
		}
	}
	return scores
}

// scoreInterPod is a node's sum over the domains it is in.
func scoreInterPod(scores map[string]map[string]int64, n *nodeInfo) int64 {
	var s int64
	for k, vals := range scores {
		if v, ok := n.node.Labels[k]; ok {
			s += vals[v]
		}
	}
	return s
}
