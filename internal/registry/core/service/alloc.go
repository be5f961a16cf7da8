package service

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/core/service/ipallocator"
	"github.com/kapi-dev/kapi/internal/registry/core/service/portallocator"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// allocators hands out a service's cluster IP and node ports. IPs live
// in storage (IPAddress objects); node ports in memory, rebuilt from the
// stored services before the first allocation.
type allocators struct {
	ips   *ipallocator.Allocator
	ports *portallocator.Allocator
	// services lists every stored service to rebuild the node ports.
	services rest.Lister

	rebuildMu sync.Mutex
	rebuilt   bool
}

// txn records what one write allocated, to undo it if the write fails,
// and what it stopped using, to release once the write succeeded.
type txn struct {
	a         *allocators
	dryRun    bool
	ips       []netip.Addr
	ports     []int
	freeIPs   []netip.Addr
	freePorts []int
}

// revert releases what the write allocated.
func (t *txn) revert(ctx context.Context) {
	if t == nil {
		return
	}
	for _, ip := range t.ips {
		_ = t.a.ips.Release(ctx, ip)
	}
	for _, p := range t.ports {
		t.a.ports.Release(p)
	}
	t.ips, t.ports = nil, nil
}

// commit releases what the written service no longer holds; a dry run
// undoes everything instead.
func (t *txn) commit(ctx context.Context) {
	if t.dryRun {
		t.revert(ctx)
		return
	}
	for _, ip := range t.freeIPs {
		_ = t.a.ips.Release(ctx, ip)
	}
	for _, p := range t.freePorts {
		t.a.ports.Release(p)
	}
}

// rebuildNodePorts marks the node ports of every stored service as used.
// It runs once, before the first node port is allocated; a failed
// rebuild is tried again on the next call.
func (a *allocators) rebuildNodePorts(ctx context.Context) error {
	a.rebuildMu.Lock()
	defer a.rebuildMu.Unlock()
	if a.rebuilt {
		return nil
	}
	obj, err := a.services.List(request.WithNamespace(ctx, ""), &metainternalversion.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing services to rebuild node ports: %w", err)
	}
	list, ok := obj.(*corev1.ServiceList)
	if !ok {
		return fmt.Errorf("services list is %T", obj)
	}
	var used []int
	for i := range list.Items {
		used = append(used, heldNodePorts(&list.Items[i])...)
	}
	a.ports.Reset(used)
	a.rebuilt = true
	return nil
}

// heldNodePorts are the node ports a stored service holds.
func heldNodePorts(svc *corev1.Service) []int {
	var out []int
	if usesNodePorts(svc) {
		for _, p := range svc.Spec.Ports {
			if p.NodePort != 0 {
				out = append(out, int(p.NodePort))
			}
		}
	}
	if needsHealthCheckNodePort(svc) && svc.Spec.HealthCheckNodePort != 0 {
		out = append(out, int(svc.Spec.HealthCheckNodePort))
	}
	return out
}

// heldIP is the cluster IP a stored service holds, if any.
func (a *allocators) heldIP(svc *corev1.Service) (netip.Addr, bool) {
	if !needsClusterIP(svc) {
		return netip.Addr{}, false
	}
	ip, err := netip.ParseAddr(svc.Spec.ClusterIP)
	if err != nil || !a.ips.Contains(ip.Unmap()) {
		return netip.Addr{}, false
	}
	return ip.Unmap(), true
}

// allocate fills and claims what svc needs and old (nil on create) did not
// hold. On error nothing stays allocated.
func (a *allocators) allocate(ctx context.Context, svc, old *corev1.Service, dryRun bool) (*txn, error) {
	t := &txn{a: a, dryRun: dryRun}
	err := a.allocateClusterIP(ctx, t, svc, old)
	if err == nil {
		err = a.allocateNodePorts(ctx, t, svc, old)
	}
	if err != nil {
		t.revert(ctx)
		return nil, err
	}
	if old != nil {
		if ip, ok := a.heldIP(old); ok {
			if newIP, held := a.heldIP(svc); !held || newIP != ip {
				t.freeIPs = append(t.freeIPs, ip)
			}
		}
		still := map[int]bool{}
		for _, p := range heldNodePorts(svc) {
			still[p] = true
		}
		for _, p := range heldNodePorts(old) {
			if !still[p] {
				t.freePorts = append(t.freePorts, p)
			}
		}
	}
	return t, nil
}

// releaseAll frees what a deleted service held.
func (a *allocators) releaseAll(ctx context.Context, svc *corev1.Service) {
	if ip, ok := a.heldIP(svc); ok {
		_ = a.ips.Release(ctx, ip)
	}
	for _, p := range heldNodePorts(svc) {
		a.ports.Release(p)
	}
}

func (a *allocators) allocateClusterIP(ctx context.Context, t *txn, svc, old *corev1.Service) error {
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		return nil
	}
	if old != nil && old.Spec.Type != corev1.ServiceTypeExternalName {
		// The IP was settled on create; validation rejects changes.
		return nil
	}
	if err := a.initIPFamilies(svc); err != nil {
		return err
	}
	if svc.Spec.ClusterIP == corev1.ClusterIPNone {
		svc.Spec.ClusterIPs = []string{corev1.ClusterIPNone}
		return nil
	}
	namespace := svc.Namespace
	if namespace == "" {
		namespace = request.NamespaceValue(ctx)
	}
	parent := ipallocator.ServiceRef(namespace, svc.Name)
	if svc.Spec.ClusterIP == "" {
		ip, err := a.ips.AllocateNext(ctx, parent, t.dryRun)
		if err != nil {
			return apierrors.NewInternalError(fmt.Errorf("failed to allocate a serviceIP: %w", err))
		}
		svc.Spec.ClusterIP = ip.String()
		svc.Spec.ClusterIPs = []string{ip.String()}
		if !t.dryRun {
			t.ips = append(t.ips, ip)
		}
		return nil
	}
	ip, err := netip.ParseAddr(svc.Spec.ClusterIP)
	if err != nil {
		// Validation reports the syntax.
		return nil
	}
	if err := a.ips.Allocate(ctx, ip, parent, t.dryRun); err != nil {
		var notInRange *ipallocator.NotInRangeError
		if !errors.Is(err, ipallocator.ErrAllocated) && !errors.As(err, &notInRange) {
			return apierrors.NewInternalError(fmt.Errorf("failed to allocate IP %v: %w", svc.Spec.ClusterIP, err))
		}
		return invalid(svc, field.Invalid(field.NewPath("spec", "clusterIPs"), svc.Spec.ClusterIPs,
			fmt.Sprintf("failed to allocate IP %v: %v", svc.Spec.ClusterIP, err)))
	}
	if !t.dryRun {
		t.ips = append(t.ips, ip.Unmap())
	}
	return nil
}

// initIPFamilies fills ipFamilyPolicy and ipFamilies for a single-stack
// cluster of the range's family, rejecting what needs another family.
// Headless services without selector take both families, as upstream:
// their endpoints are whatever the user writes.
func (a *allocators) initIPFamilies(svc *corev1.Service) error {
	family := a.ips.Family()
	other := corev1.IPv6Protocol
	if family == corev1.IPv6Protocol {
		other = corev1.IPv4Protocol
	}
	spec := &svc.Spec
	if spec.ClusterIP == corev1.ClusterIPNone && len(spec.Selector) == 0 {
		if spec.IPFamilyPolicy == nil {
			policy := corev1.IPFamilyPolicyRequireDualStack
			spec.IPFamilyPolicy = &policy
		}
		if len(spec.IPFamilies) == 0 {
			spec.IPFamilies = []corev1.IPFamily{family}
		}
		if len(spec.IPFamilies) == 1 && *spec.IPFamilyPolicy == corev1.IPFamilyPolicyRequireDualStack {
			if spec.IPFamilies[0] == family {
				spec.IPFamilies = append(spec.IPFamilies, other)
			} else {
				spec.IPFamilies = append(spec.IPFamilies, family)
			}
		}
		return nil
	}
	if spec.IPFamilyPolicy == nil {
		policy := corev1.IPFamilyPolicySingleStack
		spec.IPFamilyPolicy = &policy
	}
	if *spec.IPFamilyPolicy == corev1.IPFamilyPolicyRequireDualStack {
		return invalid(svc, field.Invalid(field.NewPath("spec", "ipFamilyPolicy"), *spec.IPFamilyPolicy,
			"this cluster is not configured for dual-stack services"))
	}
	for i, f := range spec.IPFamilies {
		if f != family {
			return invalid(svc, field.Invalid(field.NewPath("spec", "ipFamilies").Index(i), f, "not configured on this cluster"))
		}
	}
	if len(spec.IPFamilies) == 0 {
		spec.IPFamilies = []corev1.IPFamily{family}
	}
	return nil
}

func (a *allocators) allocateNodePorts(ctx context.Context, t *txn, svc, old *corev1.Service) error {
	if !usesNodePorts(svc) && !needsHealthCheckNodePort(svc) {
		return nil
	}
	if err := a.rebuildNodePorts(ctx); err != nil {
		return apierrors.NewInternalError(err)
	}
	oldHeld := map[int]bool{}
	if old != nil {
		for _, p := range heldNodePorts(old) {
			oldHeld[p] = true
		}
	}
	claimed := map[int]bool{}
	claim := func(port int, fldPath *field.Path) error {
		if oldHeld[port] || claimed[port] {
			return nil
		}
		if err := a.ports.Allocate(port); err != nil {
			return invalid(svc, field.Invalid(fldPath, port, err.Error()))
		}
		claimed[port] = true
		t.ports = append(t.ports, port)
		return nil
	}
	next := func() (int32, error) {
		port, err := a.ports.AllocateNext()
		if err != nil {
			return 0, apierrors.NewInternalError(fmt.Errorf("failed to allocate a nodePort: %w", err))
		}
		claimed[port] = true
		t.ports = append(t.ports, port)
		return int32(port), nil
	}
	// Ports that share a number (53/TCP and 53/UDP) share a node port.
	byPort := map[int32]int32{}
	for i := range svc.Spec.Ports {
		p := &svc.Spec.Ports[i]
		switch {
		case p.NodePort != 0:
			if err := claim(int(p.NodePort), field.NewPath("spec", "ports").Index(i).Child("nodePort")); err != nil {
				return err
			}
		case allocatesNodePorts(svc):
			if np, ok := byPort[p.Port]; ok {
				p.NodePort = np
				continue
			}
			np, err := next()
			if err != nil {
				return err
			}
			p.NodePort = np
		default:
			continue
		}
		byPort[p.Port] = p.NodePort
	}
	if !needsHealthCheckNodePort(svc) {
		return nil
	}
	if svc.Spec.HealthCheckNodePort != 0 {
		return claim(int(svc.Spec.HealthCheckNodePort), field.NewPath("spec", "healthCheckNodePort"))
	}
	np, err := next()
	if err != nil {
		return err
	}
	svc.Spec.HealthCheckNodePort = np
	return nil
}

func invalid(svc *corev1.Service, errs ...*field.Error) error {
	return apierrors.NewInvalid(corev1.SchemeGroupVersion.WithKind("Service").GroupKind(), svc.Name, errs)
}
