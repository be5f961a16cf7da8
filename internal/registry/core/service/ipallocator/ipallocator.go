// Package ipallocator hands out service cluster IPs the way upstream's
// modern allocator does: every allocated address is a
// networking.k8s.io/v1 IPAddress object named by the address, written
// through the IPAddress storage. The storage is the only state, so
// allocations survive restarts and a taken address is simply a create
// that fails with AlreadyExists.
package ipallocator

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// ManagedBy is the value of the ipaddress.kubernetes.io/managed-by label
// on the IPAddresses the allocator creates, as upstream.
const ManagedBy = "ipallocator.k8s.io"

// Errors with upstream's messages.
var (
	ErrFull      = errors.New("range is full")
	ErrAllocated = errors.New("provided IP is already allocated")
)

// NotInRangeError says a requested address is outside the service range.
type NotInRangeError struct {
	ValidRange string
}

func (e *NotInRangeError) Error() string {
	return fmt.Sprintf("provided IP is not in the valid range. The range of valid IPs is %s", e.ValidRange)
}

// Storage is what the allocator needs of the IPAddress storage.
type Storage interface {
	rest.Creater
	rest.Getter
	rest.Lister
	rest.GracefulDeleter
}

// Allocator allocates addresses of one prefix. It holds no state of its
// own and is safe for concurrent use.
type Allocator struct {
	prefix netip.Prefix
	// first and last bound the usable addresses: the network and
	// broadcast addresses are never handed out.
	first, last netip.Addr
	size        uint64
	// staticBand is how many addresses at the bottom of the range dynamic
	// allocation uses only when the rest is full, leaving them for
	// explicit requests (upstream's range offset).
	staticBand uint64
	store      Storage
	intN       func(uint64) uint64
}

// New returns an allocator over prefix writing through store. The prefix
// needs at least one usable address besides the first, which is kept for
// the kubernetes service.
func New(prefix netip.Prefix, store Storage) (*Allocator, error) {
	prefix = prefix.Masked()
	bits := prefix.Addr().BitLen() - prefix.Bits()
	if bits < 2 {
		return nil, fmt.Errorf("service IP range %s is too small", prefix)
	}
	size := uint64(1)<<min(bits, 63) - 2
	if bits >= 64 {
		size = 1 << 63
	}
	first := prefix.Addr().Next()
	a := &Allocator{
		prefix: prefix,
		first:  first,
		last:   addOffset(first, size-1),
		size:   size,
		store:  store,
		intN:   rand.Uint64N,
	}
	a.staticBand = staticBand(size + 2)
	return a, nil
}

// staticBand is upstream's range offset for a range of cidrSize
// addresses: a sixteenth of it, at least 16 and at most 256, or none
// for ranges of 16 or fewer.
func staticBand(cidrSize uint64) uint64 {
	if cidrSize <= 16 {
		return 0
	}
	return min(max(cidrSize/16, 16), 256)
}

// Prefix is the service IP range.
func (a *Allocator) Prefix() netip.Prefix { return a.prefix }

// First is the first usable address, reserved for the kubernetes service.
func (a *Allocator) First() netip.Addr { return a.first }

// Family is the IP family of the range.
func (a *Allocator) Family() corev1.IPFamily {
	if a.prefix.Addr().Is4() {
		return corev1.IPv4Protocol
	}
	return corev1.IPv6Protocol
}

// Usable reports how many addresses the range can hand out: all but the
// network and broadcast addresses.
func (a *Allocator) Usable() uint64 { return a.size }

// Contains says whether ip is a usable address of the range.
func (a *Allocator) Contains(ip netip.Addr) bool {
	return a.prefix.Contains(ip) && ip.Compare(a.first) >= 0 && ip.Compare(a.last) <= 0
}

// Allocate claims ip for the service parent. With dryRun it only checks
// that ip is free.
func (a *Allocator) Allocate(ctx context.Context, ip netip.Addr, parent *networkingv1.ParentReference, dryRun bool) error {
	ip = ip.Unmap()
	if !a.Contains(ip) {
		return &NotInRangeError{ValidRange: a.prefix.String()}
	}
	if dryRun {
		_, err := a.store.Get(clusterContext(ctx), ip.String(), &metav1.GetOptions{})
		switch {
		case err == nil:
			return ErrAllocated
		case apierrors.IsNotFound(err):
			return nil
		default:
			return err
		}
	}
	err := a.create(ctx, ip, parent)
	if apierrors.IsAlreadyExists(err) {
		return ErrAllocated
	}
	return err
}

// AllocateNext claims a free address for parent and returns it: first
// from the upper part of the range, from a random start, then from the
// static band. The first address is never handed out here. With dryRun
// the address is chosen but not claimed.
func (a *Allocator) AllocateNext(ctx context.Context, parent *networkingv1.ParentReference, dryRun bool) (netip.Addr, error) {
	used, err := a.used(ctx)
	if err != nil {
		return netip.Addr{}, err
	}
	bands := [][2]uint64{{max(a.staticBand, 1), a.size}, {1, a.staticBand}}
	for _, band := range bands {
		lo, hi := band[0], band[1]
		if lo >= hi {
			continue
		}
		start := a.intN(hi - lo)
		for i := uint64(0); i < hi-lo; i++ {
			ip := addOffset(a.first, lo+(start+i)%(hi-lo))
			if used[ip] {
				continue
			}
			if dryRun {
				return ip, nil
			}
			err := a.create(ctx, ip, parent)
			if err == nil {
				return ip, nil
			}
			if !apierrors.IsAlreadyExists(err) {
				return netip.Addr{}, err
			}
			// Taken since the list: try the next.
			used[ip] = true
		}
	}
	return netip.Addr{}, ErrFull
}

// Release frees ip. Releasing an address nobody holds is not an error.
func (a *Allocator) Release(ctx context.Context, ip netip.Addr) error {
	_, _, err := a.store.Delete(clusterContext(ctx), ip.Unmap().String(), nil, &metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// used lists the addresses of the range that IPAddress objects hold.
// Listing once per allocation keeps the storage the single source of
// truth; creates that lose a race still fail with AlreadyExists.
func (a *Allocator) used(ctx context.Context) (map[netip.Addr]bool, error) {
	obj, err := a.store.List(clusterContext(ctx), &metainternalversion.ListOptions{})
	if err != nil {
		return nil, err
	}
	list, ok := obj.(*networkingv1.IPAddressList)
	if !ok {
		return nil, fmt.Errorf("ipaddresses list is %T", obj)
	}
	used := make(map[netip.Addr]bool, len(list.Items))
	for _, item := range list.Items {
		if ip, err := netip.ParseAddr(item.Name); err == nil && a.Contains(ip) {
			used[ip] = true
		}
	}
	return used, nil
}

func (a *Allocator) create(ctx context.Context, ip netip.Addr, parent *networkingv1.ParentReference) error {
	obj := &networkingv1.IPAddress{
		ObjectMeta: metav1.ObjectMeta{
			Name: ip.String(),
			Labels: map[string]string{
				networkingv1.LabelIPAddressFamily: string(a.Family()),
				networkingv1.LabelManagedBy:       ManagedBy,
			},
		},
		Spec: networkingv1.IPAddressSpec{ParentRef: parent},
	}
	_, err := a.store.Create(clusterContext(ctx), obj, nil, &metav1.CreateOptions{})
	return err
}

// ServiceRef is the parentRef of a service's IPAddress.
func ServiceRef(namespace, name string) *networkingv1.ParentReference {
	return &networkingv1.ParentReference{Group: "", Resource: "services", Namespace: namespace, Name: name}
}

// clusterContext is ctx for the cluster-scoped IPAddress storage.
func clusterContext(ctx context.Context) context.Context {
	return request.WithNamespace(ctx, "")
}

// addOffset returns ip + off.
func addOffset(ip netip.Addr, off uint64) netip.Addr {
	b := ip.As16()
	carry := off
	for i := 15; i >= 0 && carry > 0; i-- {
		sum := uint64(b[i]) + carry&0xff
		b[i] = byte(sum)
		carry = carry>>8 + sum>>8
	}
	out := netip.AddrFrom16(b)
	if ip.Is4() {
		return out.Unmap()
	}
	return out
}
