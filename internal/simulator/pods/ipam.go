package pods

import (
	"fmt"
	"net/netip"
	"sync"

	"k8s.io/apimachinery/pkg/types"
)

// ipam hands out pod IPs from each node's pod CIDR, at most one per live
// Pod, as a CNI plugin's host-local IPAM does; the network and broadcast
// addresses and the first host address (the bridge) are never handed out.
type ipam struct {
	mu     sync.Mutex
	byNode map[string]map[netip.Addr]types.UID
	byPod  map[types.UID]podAddr
}

type podAddr struct {
	node string
	addr netip.Addr
}

func newIPAM() *ipam {
	return &ipam{byNode: map[string]map[netip.Addr]types.UID{}, byPod: map[types.UID]podAddr{}}
}

// allocate returns uid's address on node, taking the lowest free one in
// cidr when it has none.
func (a *ipam) allocate(node, cidr string, uid types.UID) (netip.Addr, error) {
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("node %s has no usable pod CIDR %q: %w", node, cidr, err)
	}
	p = p.Masked()
	a.mu.Lock()
	defer a.mu.Unlock()
	if pa, ok := a.byPod[uid]; ok && pa.node == node {
		return pa.addr, nil
	}
	used := a.byNode[node]
	if used == nil {
		used = map[netip.Addr]types.UID{}
		a.byNode[node] = used
	}
	// Skip the network address and the bridge's.
	for ip := p.Addr().Next().Next(); p.Contains(ip); ip = ip.Next() {
		if !p.Contains(ip.Next()) && ip.Is4() {
			break // broadcast
		}
		if _, taken := used[ip]; !taken {
			used[ip] = uid
			a.byPod[uid] = podAddr{node, ip}
			return ip, nil
		}
	}
	return netip.Addr{}, fmt.Errorf("no free pod IP left in %s on node %s", cidr, node)
}

// claim records an address a Pod already has (after a restart), so it is
// not handed out again. A conflicting claim is refused.
func (a *ipam) claim(node, ip string, uid types.UID) bool {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	used := a.byNode[node]
	if used == nil {
		used = map[netip.Addr]types.UID{}
		a.byNode[node] = used
	}
	if owner, ok := used[addr]; ok && owner != uid {
		return false
	}
	used[addr] = uid
	a.byPod[uid] = podAddr{node, addr}
	return true
}

// release frees uid's address, if it has one.
func (a *ipam) release(uid types.UID) {
	a.mu.Lock()
	defer a.mu.Unlock()
	pa, ok := a.byPod[uid]
	if !ok {
		return
	}
	delete(a.byPod, uid)
	delete(a.byNode[pa.node], pa.addr)
}
