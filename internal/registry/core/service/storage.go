package service

import (
	"context"
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/core/service/ipallocator"
	"github.com/kapi-dev/kapi/internal/registry/core/service/portallocator"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// DefaultServiceCIDR is the cluster IP range when Options leaves it out.
var DefaultServiceCIDR = netip.MustParsePrefix("10.0.0.0/24")

// Options are the inputs of the service storage beyond the scheme and
// the storage backend.
type Options struct {
	// ServiceCIDR is the range cluster IPs come from; the zero value
	// means DefaultServiceCIDR. Its first address is kept for the
	// kubernetes service.
	ServiceCIDR netip.Prefix
	// NodePortRange is the range node ports come from; the zero value
	// means portallocator.DefaultRange (30000-32767).
	NodePortRange portallocator.Range
	// IPAddresses is the storage of networking.k8s.io/v1 ipaddresses
	// (the "ipaddresses" entry of the ipaddress package's NewStorage);
	// every allocated cluster IP is an object there. Required.
	IPAddresses ipallocator.Storage
}

func (o Options) complete() (Options, error) {
	if o.IPAddresses == nil {
		return o, fmt.Errorf("service storage needs the ipaddresses storage")
	}
	if !o.ServiceCIDR.IsValid() {
		o.ServiceCIDR = DefaultServiceCIDR
	}
	if o.NodePortRange == (portallocator.Range{}) {
		o.NodePortRange = portallocator.DefaultRange
	}
	return o, nil
}

// REST is the storage of services: the generic store with allocation of
// cluster IPs and node ports around create, update and delete.
type REST struct {
	*generic.Store
	alloc *allocators
}

var (
	_ rest.StandardStorage      = (*REST)(nil)
	_ rest.ShortNamesProvider   = (*REST)(nil)
	_ rest.CategoriesProvider   = (*REST)(nil)
	_ rest.SingularNameProvider = (*REST)(nil)
)

// NewStorage returns the storage of services, services/status and
// services/proxy. Before serving, or in a post-start hook, the integrator
// may call RebuildNodePorts on the "services" entry (a *REST); otherwise
// the first node port allocation rebuilds the used set.
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter, opts Options) (map[string]rest.Storage, error) {
	r, status, proxy, err := NewREST(scheme, optsGetter, opts)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{"services": r, "services/status": status, "services/proxy": proxy}, nil
}

// NewREST builds the service storage and its subresources.
func NewREST(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter, opts Options) (*REST, *generic.StatusREST, *ProxyREST, error) {
	opts, err := opts.complete()
	if err != nil {
		return nil, nil, nil, err
	}
	strategy := NewStrategy(scheme)
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &corev1.Service{} },
		NewListFunc:    func() runtime.Object { return &corev1.ServiceList{} },
		Resource:       corev1.Resource("services"),
		Singular:       corev1.Resource("service"),
		Strategy:       strategy,
		TableConvertor: Table(),
		AttrFunc:       GetAttrs,
		ShortNames:     []string{"svc"},
		Categories:     []string{"all"},
	}, optsGetter)
	if err != nil {
		return nil, nil, nil, err
	}
	// As upstream: DELETE answers with the deleted service.
	store.ReturnDeletedObject = true
	ips, err := ipallocator.New(opts.ServiceCIDR, opts.IPAddresses)
	if err != nil {
		return nil, nil, nil, err
	}
	ports, err := portallocator.New(opts.NodePortRange)
	if err != nil {
		return nil, nil, nil, err
	}
	r := &REST{Store: store, alloc: &allocators{ips: ips, ports: ports, services: store}}
	return r, generic.NewStatusREST(store, StatusStrategy{strategy}), &ProxyREST{}, nil
}

// RebuildNodePorts marks the node ports of every stored service as used.
// It runs once; later calls do nothing.
func (r *REST) RebuildNodePorts(ctx context.Context) error {
	return r.alloc.rebuildNodePorts(ctx)
}

// ServiceCIDR is the range cluster IPs come from.
func (r *REST) ServiceCIDR() netip.Prefix { return r.alloc.ips.Prefix() }

// Create allocates the service's cluster IP and node ports, then stores
// it; if the write fails the allocations are released.
func (r *REST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	if options == nil {
		options = &metav1.CreateOptions{}
	}
	svc, ok := obj.(*corev1.Service)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a Service: %T", obj))
	}
	// The IPAddress names its service: the name must be known now.
	if svc.Name == "" && svc.GenerateName != "" {
		svc.Name = rest.SimpleNameGenerator{}.GenerateName(svc.GenerateName)
	}
	normalizeClusterIPs(svc, nil)
	// An invalid service should not claim addresses it will give back.
	if errs := r.CreateStrategy.Validate(ctx, svc); len(errs) > 0 {
		return nil, invalid(svc, errs...)
	}
	t, err := r.alloc.allocate(ctx, svc, nil, isDryRun(options.DryRun))
	if err != nil {
		return nil, err
	}
	out, err := r.Store.Create(ctx, svc, createValidation, options)
	if err != nil {
		t.revert(ctx)
		return nil, err
	}
	t.commit(ctx)
	return out, nil
}

// Update allocates what the new service needs (a type change to NodePort,
// from ExternalName, ...) inside the storage's update, and releases what
// it stopped using once the write succeeded.
func (r *REST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	if options == nil {
		options = &metav1.UpdateOptions{}
	}
	u := &allocatingUpdate{UpdatedObjectInfo: objInfo, r: r, dryRun: isDryRun(options.DryRun)}
	out, created, err := r.Store.Update(ctx, name, u, createValidation, updateValidation, forceAllowCreate, options)
	if err != nil {
		u.t.revert(ctx)
		return nil, false, err
	}
	if u.t != nil {
		u.t.commit(ctx)
	}
	// An update that removed the last finalizer of a deleted service
	// deleted it.
	if svc, ok := out.(*corev1.Service); ok && !u.dryRun && svc.DeletionTimestamp != nil && len(svc.Finalizers) == 0 {
		r.alloc.releaseAll(ctx, svc)
	}
	return out, created, nil
}

// allocatingUpdate computes the new service and allocates for it. The
// storage may call UpdatedObject again after a conflict; each call
// first undoes the previous one.
type allocatingUpdate struct {
	rest.UpdatedObjectInfo
	r      *REST
	dryRun bool
	t      *txn
}

func (u *allocatingUpdate) UpdatedObject(ctx context.Context, oldObj runtime.Object) (runtime.Object, error) {
	u.t.revert(ctx)
	u.t = nil
	obj, err := u.UpdatedObjectInfo.UpdatedObject(ctx, oldObj)
	if err != nil {
		return nil, err
	}
	svc, ok := obj.(*corev1.Service)
	old, okOld := oldObj.(*corev1.Service)
	if !ok || !okOld {
		return obj, nil
	}
	patchAllocatedValues(svc, old)
	normalizeClusterIPs(svc, old)
	dropTypeDependentFields(svc, old)
	t, err := u.r.alloc.allocate(ctx, svc, old, u.dryRun)
	if err != nil {
		return nil, err
	}
	u.t = t
	return svc, nil
}

// Delete deletes a service and releases its cluster IP and node ports.
func (r *REST) Delete(ctx context.Context, name string, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions) (runtime.Object, bool, error) {
	out, deleted, err := r.Store.Delete(ctx, name, deleteValidation, options)
	if err != nil {
		return nil, false, err
	}
	if svc, ok := out.(*corev1.Service); ok && deleted && (options == nil || !isDryRun(options.DryRun)) {
		r.alloc.releaseAll(ctx, svc)
	}
	return out, deleted, nil
}

// DeleteCollection deletes the selected services one by one through
// Delete, so each releases what it held, and returns the deleted ones.
func (r *REST) DeleteCollection(ctx context.Context, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions, listOptions *metainternalversion.ListOptions) (runtime.Object, error) {
	if listOptions == nil {
		listOptions = &metainternalversion.ListOptions{}
	}
	obj, err := r.Store.List(ctx, listOptions.DeepCopy())
	if err != nil {
		return nil, err
	}
	list := obj.(*corev1.ServiceList)
	deleted := &corev1.ServiceList{ListMeta: metav1.ListMeta{ResourceVersion: list.ResourceVersion}}
	for i := range list.Items {
		svc := &list.Items[i]
		itemCtx := ctx
		out, _, err := r.Delete(itemCtx, svc.Name, deleteValidation, options.DeepCopy())
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if s, ok := out.(*corev1.Service); ok {
			deleted.Items = append(deleted.Items, *s)
		}
	}
	if m, err := meta.ListAccessor(deleted); err == nil && m.GetResourceVersion() == "" {
		m.SetResourceVersion(list.ResourceVersion)
	}
	return deleted, nil
}

func isDryRun(dryRun []string) bool {
	return len(dryRun) > 0
}
