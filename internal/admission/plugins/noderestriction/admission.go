// Package noderestriction is the NodeRestriction admission plugin: a
// kubelet may only write its own Node (without touching its taints or
// protected labels), its own Lease and CSINode, mirror pods bound to it,
// the status and evictions of its pods, status of the claims they use,
// tokens bound to its pods, and its own ResourceSlices. It checks what the
// Node authorizer cannot see: the objects being written.
package noderestriction

import (
	"context"
	"errors"
	"fmt"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/auth/authorizer/node"
)

// PluginName is the name used by --enable-admission-plugins.
const PluginName = "NodeRestriction"

// PodGetter reads a pod by namespace and name.
type PodGetter func(ctx context.Context, namespace, name string) (*corev1.Pod, error)

// Plugin is the NodeRestriction admission plugin.
type Plugin struct {
	getPod PodGetter
}

var _ admission.Interface = (*Plugin)(nil)

// New returns the plugin; getPod reads current pods (for deletes,
// evictions and token requests).
func New(getPod func(ctx context.Context, namespace, name string) (*corev1.Pod, error)) *Plugin {
	return &Plugin{getPod: getPod}
}

var (
	podResource      = schema.GroupResource{Resource: "pods"}
	nodeResource     = schema.GroupResource{Resource: "nodes"}
	pvcResource      = schema.GroupResource{Resource: "persistentvolumeclaims"}
	accountResource  = schema.GroupResource{Resource: "serviceaccounts"}
	leaseResource    = schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}
	csiNodeResource  = schema.GroupResource{Group: "storage.k8s.io", Resource: "csinodes"}
	sliceResource    = schema.GroupResource{Group: "resource.k8s.io", Resource: "resourceslices"}
	errUnknownObject = errors.New("unable to access the object name")
)

// Admit checks node writes in the mutating phase, as upstream does.
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) error { return p.admit(ctx, a) }

// Validate checks them again on the final object, after later mutating
// plugins had their turn.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	return p.admit(ctx, a)
}

func (p *Plugin) admit(ctx context.Context, a *admission.Attributes) error {
	nodeName, isNode := node.Identity(a.UserInfo)
	if !isNode {
		return nil
	}
	if nodeName == "" {
		return forbidden(a, fmt.Errorf("could not determine node from user %q", a.UserInfo.GetName()))
	}
	switch a.Resource.GroupResource() {
	case podResource:
		switch a.Subresource {
		case "":
			return p.admitPod(ctx, nodeName, a)
		case "status":
			return admitPodStatus(nodeName, a)
		case "eviction":
			return p.admitEviction(ctx, nodeName, a)
		default:
			return forbidden(a, fmt.Errorf("unexpected subresource %q, only 'status' and 'eviction' are allowed", a.Subresource))
		}
	case nodeResource:
		return admitNode(nodeName, a)
	case pvcResource:
		if a.Subresource != "status" {
			return forbidden(a, errors.New("may only update PVC status"))
		}
		return admitPVCStatus(nodeName, a)
	case accountResource:
		return p.admitToken(ctx, nodeName, a)
	case leaseResource:
		return admitLease(nodeName, a)
	case csiNodeResource:
		return admitCSINode(nodeName, a)
	case sliceResource:
		return admitResourceSlice(nodeName, a)
	}
	return nil
}

// forbidden is upstream's admission.NewForbidden: a 403 naming the object
// (or its generateName, or "Unknown") with err as the reason.
func forbidden(a *admission.Attributes, err error) error {
	if apierrors.IsForbidden(err) {
		return err
	}
	name := a.Name
	if name == "" {
		name = "Unknown"
		if a.Object != nil {
			if m, merr := meta.Accessor(a.Object); merr != nil {
				name = "Unknown/errorGettingName"
			} else if m.GetName() != "" {
				name = m.GetName()
			} else if m.GetGenerateName() != "" {
				name = m.GetGenerateName()
			}
		}
	}
	return apierrors.NewForbidden(a.Resource.GroupResource(), name, err)
}

func unexpectedType(a *admission.Attributes, obj any) error {
	return forbidden(a, fmt.Errorf("unexpected type %T", obj))
}

func admitLease(nodeName string, a *admission.Attributes) error {
	if a.Namespace != node.NodeLeaseNamespace {
		return forbidden(a, fmt.Errorf("can only access leases in the %q system namespace", node.NodeLeaseNamespace))
	}
	name := a.Name
	if a.Operation == admission.Create {
		// The name of a created object is in the object.
		lease, ok := a.Object.(*coordinationv1.Lease)
		if !ok {
			return unexpectedType(a, a.Object)
		}
		name = lease.Name
	}
	if name != nodeName {
		return forbidden(a, errors.New("can only access node lease with the same name as the requesting node"))
	}
	return nil
}

func admitCSINode(nodeName string, a *admission.Attributes) error {
	name := a.Name
	if a.Operation == admission.Create {
		m, err := meta.Accessor(a.Object)
		if err != nil {
			return forbidden(a, errUnknownObject)
		}
		name = m.GetName()
	}
	if name != nodeName {
		return forbidden(a, errors.New("can only access CSINode with the same name as the requesting node"))
	}
	return nil
}

// admitResourceSlice keeps a node to slices of its own: the authorizer
// cannot see a created object's spec.nodeName, nor an existing one's.
func admitResourceSlice(nodeName string, a *admission.Attributes) error {
	check := func(obj any, verb string) error {
		slice, ok := obj.(*resourcev1.ResourceSlice)
		if !ok {
			return unexpectedType(a, obj)
		}
		if slice.Spec.NodeName == nil || *slice.Spec.NodeName != nodeName {
			return forbidden(a, fmt.Errorf("can only %s ResourceSlice with the same NodeName as the requesting node", verb))
		}
		return nil
	}
	switch a.Operation {
	case admission.Create:
		return check(a.Object, "create")
	case admission.Update, admission.Delete:
		if a.OldObject != nil {
			return check(a.OldObject, strings.ToLower(string(a.Operation)))
		}
	}
	return nil
}

// admitToken requires a node's token requests to be bound to a pod that
// runs on the node.
func (p *Plugin) admitToken(ctx context.Context, nodeName string, a *admission.Attributes) error {
	if a.Operation != admission.Create || a.Subresource != "token" {
		return nil
	}
	tr, ok := a.Object.(*authenticationv1.TokenRequest)
	if !ok {
		return unexpectedType(a, a.Object)
	}
	ref := tr.Spec.BoundObjectRef
	if ref == nil || ref.APIVersion != "v1" || ref.Kind != "Pod" || ref.Name == "" {
		return forbidden(a, errors.New("node requested token not bound to a pod"))
	}
	if ref.UID == "" {
		return forbidden(a, errors.New("node requested token with a pod binding without a uid"))
	}
	pod, err := p.getPod(ctx, a.Namespace, ref.Name)
	if apierrors.IsNotFound(err) {
		return err
	}
	if err != nil {
		return forbidden(a, err)
	}
	if ref.UID != pod.UID {
		return forbidden(a, fmt.Errorf("the UID in the bound object reference (%s) does not match the UID in record. The object might have been deleted and then recreated", ref.UID))
	}
	if pod.Spec.NodeName != nodeName {
		return forbidden(a, errors.New("node requested token bound to a pod scheduled on a different node"))
	}
	return nil
}

func (p *Plugin) admitEviction(ctx context.Context, nodeName string, a *admission.Attributes) error {
	if a.Operation != admission.Create {
		return forbidden(a, fmt.Errorf("unexpected operation %s", a.Operation))
	}
	eviction, ok := a.Object.(*policyv1.Eviction)
	if !ok {
		return unexpectedType(a, a.Object)
	}
	// The pod named in the URL wins over the body's.
	podName := a.Name
	if podName == "" {
		if eviction.Name == "" {
			return forbidden(a, errors.New("could not determine pod from request data"))
		}
		podName = eviction.Name
	}
	pod, err := p.getPod(ctx, a.Namespace, podName)
	if apierrors.IsNotFound(err) {
		return err
	}
	if err != nil {
		return forbidden(a, err)
	}
	if pod.Spec.NodeName != nodeName {
		return forbidden(a, fmt.Errorf("node %s can only evict pods with spec.nodeName set to itself", nodeName))
	}
	return nil
}
