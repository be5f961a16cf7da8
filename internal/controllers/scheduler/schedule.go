package scheduler

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

// cycleState is what one scheduling attempt computes about its pod.
type cycleState struct {
	pod                  *corev1.Pod
	info                 *podInfo
	requiredNodeAffinity nodeaffinity.RequiredNodeAffinity
	scalarNames          []corev1.ResourceName
	interPod             *interPodState
	hardSpread           *spreadState
}

// filter is one filter plugin; filters run in upstream's default order
// and a node's first rejection is what it reports.
type filter func(st *cycleState, n *nodeInfo) *status

func (s *Scheduler) filters() []filter {
	return []filter{filterUnschedulable, filterTaints, filterNodeAffinity, filterPorts, filterFit, filterSpread, s.filterInterPod}
}

// fitError is upstream's FitError: why each node was rejected.
type fitError struct {
	numAllNodes int
	statuses    map[string]*status // node name -> rejection
	postFilter  string
}

// Upstream's adaptive share of nodes to find feasible before scoring.
const (
	minFeasibleNodesToFind           = 100
	minFeasibleNodesPercentageToFind = 5
)

func numFeasibleNodesToFind(all int) int {
	if all < minFeasibleNodesToFind {
		return all
	}
	pct := 50 - all/125
	if pct < minFeasibleNodesPercentageToFind {
		pct = minFeasibleNodesPercentageToFind
	}
	n := all * pct / 100
	if n < minFeasibleNodesToFind {
		return minFeasibleNodesToFind
	}
	return n
}

// schedule picks a node for the pod under the cache lock and assumes the
// pod onto it; it returns a fitError when no node fits.
func (s *Scheduler) schedule(key string, pod *corev1.Pod) (string, *podInfo, error) {
	s.cache.mu.Lock()
	defer s.cache.mu.Unlock()
	nodes := s.cache.listLocked()
	if len(nodes) == 0 {
		return "", nil, errNoNodes
	}
	st, err := s.newCycleState(pod, nodes)
	if err != nil {
		return "", nil, err
	}
	feasible, fe := s.findFeasible(st, nodes)
	if len(feasible) == 0 {
		fe.postFilter = s.preemptionMessage(st, nodes, fe)
		return "", nil, fe
	}
	host := feasible[0].node.Name
	if len(feasible) > 1 {
		host = s.selectHost(s.prioritize(st, feasible, nodes))
	}
	s.cache.assume(key, st.info, host)
	return host, st.info, nil
}

func (s *Scheduler) newCycleState(pod *corev1.Pod, nodes []*nodeInfo) (*cycleState, error) {
	pi := newPodInfo(pod)
	if pi.parseErr != nil {
		return nil, pi.parseErr
	}
	st := &cycleState{pod: pod, info: pi, requiredNodeAffinity: requiredNodeAffinity(pod)}
	for name := range pi.req.scalars {
		st.scalarNames = append(st.scalarNames, name)
	}
	sort.Slice(st.scalarNames, func(i, j int) bool { return st.scalarNames[i] < st.scalarNames[j] })
	hard, err := spreadConstraints(pod, corev1.DoNotSchedule)
	if err != nil {
		return nil, err
	}
	if len(hard) > 0 {
		st.hardSpread = newSpreadState(st, hard, nodes)
	}
	s.preFilterInterPod(st, nodes)
	return st, nil
}

// findFeasible filters nodes from a rotating start until enough fit, as
// upstream does, recording each rejection.
func (s *Scheduler) findFeasible(st *cycleState, nodes []*nodeInfo) ([]*nodeInfo, *fitError) {
	want := numFeasibleNodesToFind(len(nodes))
	fe := &fitError{numAllNodes: len(nodes), statuses: map[string]*status{}}
	var feasible []*nodeInfo
	filters := s.filters()
	processed := 0
	start := s.nextStartNodeIndex % len(nodes)
	for i := 0; i < len(nodes) && len(feasible) < want; i++ {
		n := nodes[(start+i)%len(nodes)]
		processed++
		if st := runFilters(filters, st, n); st != nil {
			fe.statuses[n.node.Name] = st
			continue
		}
		feasible = append(feasible, n)
	}
	s.nextStartNodeIndex = (start + processed) % len(nodes)
	return feasible, fe
}

func runFilters(filters []filter, st *cycleState, n *nodeInfo) *status {
	for _, f := range filters {
		if r := f(st, n); r != nil {
			return r
		}
	}
	return nil
}

// selectHost picks the highest score; ties go to a random node, or the
// first by name when the scheduler is deterministic.
func (s *Scheduler) selectHost(scores []nodeScore) string {
	best, seen := 0, 1
	for i := 1; i < len(scores); i++ {
		switch {
		case scores[i].score > scores[best].score:
			best, seen = i, 1
		case scores[i].score == scores[best].score:
			seen++
			if s.rand != nil {
				if s.rand.IntN(seen) == 0 {
					best = i
				}
			} else if scores[i].name < scores[best].name {
				best = i
			}
		}
	}
	return scores[best].name
}
