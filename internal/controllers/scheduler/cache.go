package scheduler

import (
	"sort"
	"sync"

	corev1 "k8s.io/api/core/v1"
)

// nodeInfo is one node and the pods bound or assumed onto it.
type nodeInfo struct {
	node        *corev1.Node // nil while only its pods are known
	allocatable resources
	pods        map[string]*podInfo
	requested   resources // sum of pods' requests (what fit counts)
	nonZero     resources // sum with upstream's defaults (what scoring counts)
	ports       map[hostPort]int
	// withAffinity counts pods with any pod (anti-)affinity term and
	// withAntiAffinity those with a required anti-affinity term.
	withAffinity, withAntiAffinity int
}

func newNodeInfo() *nodeInfo {
	return &nodeInfo{pods: map[string]*podInfo{}, ports: map[hostPort]int{}}
}

func (n *nodeInfo) setNode(node *corev1.Node) {
	n.node = node
	n.allocatable = newResources(node.Status.Allocatable)
}

func (n *nodeInfo) addPod(key string, pi *podInfo, sign int) {
	n.requested.plus(pi.req, int64(sign))
	n.nonZero.plus(pi.nonZero, int64(sign))
	for _, p := range pi.ports {
		n.ports[p] += sign
		if n.ports[p] <= 0 {
			delete(n.ports, p)
		}
	}
	if pi.hasAffinity() {
		n.withAffinity += sign
	}
	if len(pi.requiredAntiAffinity) > 0 {
		n.withAntiAffinity += sign
	}
	if sign > 0 {
		n.pods[key] = pi
	} else {
		delete(n.pods, key)
	}
}

// nodeCache is the scheduler's view of nodes and assigned pods: the
// informers' objects plus the pods it assumed bound before the informer
// shows them, so the next decision counts them.
type nodeCache struct {
	mu      sync.Mutex
	nodes   map[string]*nodeInfo
	podNode map[string]string // pod key -> node it is counted on
	assumed map[string]bool
	// sorted is the nodes by name, rebuilt when one comes or goes.
	sorted []*nodeInfo
	dirty  bool
	// withAffinity and withAntiAffinity are the sums over nodes, so a
	// pod without affinity skips the scan when no existing pod has any.
	withAffinity, withAntiAffinity int
}

func newCache() *nodeCache {
	return &nodeCache{nodes: map[string]*nodeInfo{}, podNode: map[string]string{}, assumed: map[string]bool{}}
}

func (c *nodeCache) info(name string) *nodeInfo {
	n := c.nodes[name]
	if n == nil {
		n = newNodeInfo()
		c.nodes[name] = n
	}
	return n
}

func (c *nodeCache) upsertNode(node *corev1.Node) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.info(node.Name)
	if n.node == nil {
		c.dirty = true
	}
	n.setNode(node)
}

func (c *nodeCache) deleteNode(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.nodes[name]
	if n == nil {
		return
	}
	c.dirty = true
	// Pods still bound to it are kept until they are deleted.
	if len(n.pods) == 0 {
		delete(c.nodes, name)
		return
	}
	n.node = nil
}

// setPod counts an assigned pod on its node (replacing whatever was
// counted for the key, an assumed pod included).
func (c *nodeCache) setPod(key string, pod *corev1.Pod) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.removeLocked(key)
	delete(c.assumed, key)
	c.addLocked(key, newPodInfo(pod), pod.Spec.NodeName)
}

// assume counts pod on nodeName before the binding is seen.
func (c *nodeCache) assume(key string, pi *podInfo, nodeName string) {
	c.removeLocked(key)
	c.assumed[key] = true
	c.addLocked(key, pi, nodeName)
}

// forget drops an assumed pod whose binding failed.
func (c *nodeCache) forget(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.assumed[key] {
		delete(c.assumed, key)
		c.removeLocked(key)
	}
}

func (c *nodeCache) isAssumed(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.assumed[key]
}

func (c *nodeCache) removePod(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.assumed, key)
	c.removeLocked(key)
}

func (c *nodeCache) addLocked(key string, pi *podInfo, nodeName string) {
	n := c.info(nodeName)
	n.addPod(key, pi, 1)
	c.podNode[key] = nodeName
	if pi.hasAffinity() {
		c.withAffinity++
	}
	if len(pi.requiredAntiAffinity) > 0 {
		c.withAntiAffinity++
	}
}

func (c *nodeCache) removeLocked(key string) {
	name, ok := c.podNode[key]
	if !ok {
		return
	}
	delete(c.podNode, key)
	n := c.nodes[name]
	pi := n.pods[key]
	n.addPod(key, pi, -1)
	if pi.hasAffinity() {
		c.withAffinity--
	}
	if len(pi.requiredAntiAffinity) > 0 {
		c.withAntiAffinity--
	}
	if n.node == nil && len(n.pods) == 0 {
		delete(c.nodes, name)
	}
}

// listLocked returns the known nodes sorted by name; callers must not
// keep the slice past the lock.
func (c *nodeCache) listLocked() []*nodeInfo {
	if !c.dirty && c.sorted != nil {
		return c.sorted
	}
	out := make([]*nodeInfo, 0, len(c.nodes))
	for _, n := range c.nodes {
		if n.node != nil {
			out = append(out, n)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].node.Name < out[j].node.Name })
	c.sorted, c.dirty = out, false
	return out
}
