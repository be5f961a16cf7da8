// Package ownerreferences is the OwnerReferencesPermissionEnforcement
// admission plugin: changing an object's owner references needs the right
// to delete the object, and making a reference block its owner's deletion
// needs the right to update the owner's finalizers.
package ownerreferences

import (
	"context"
	"fmt"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/admission/plugins/forbidden"
	"github.com/kapi-dev/kapi/internal/auth/authorizer"
)

// PluginName is the name used by --enable-admission-plugins.
const PluginName = "OwnerReferencesPermissionEnforcement"

// Plugin enforces owner reference permissions.
type Plugin struct {
	authz  authorizer.Authorizer
	mapper meta.RESTMapper
}

var _ admission.ValidationInterface = (*Plugin)(nil)

// New returns the plugin; it needs an authorizer and a REST mapper (to
// turn an owner's kind into its resource).
func New(authz authorizer.Authorizer, mapper meta.RESTMapper) (*Plugin, error) {
	if authz == nil {
		return nil, fmt.Errorf("missing authorizer")
	}
	if mapper == nil {
		return nil, fmt.Errorf("missing restMapper")
	}
	return &Plugin{authz: authz, mapper: mapper}, nil
}

// podStatus is ignored: old kubelets rewrite owner references there, and
// the pod status strategy keeps them from changing anyway.
var podStatus = schema.GroupResource{Resource: "pods"}

// Validate checks creates and updates that change owner references.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	if a.Operation != admission.Create && a.Operation != admission.Update {
		return nil
	}
	if a.Resource.GroupResource() == podStatus && a.Subresource == "status" {
		return nil
	}
	if !changesOwnerReferences(a.Object, a.OldObject) {
		return nil
	}
	if a.Operation != admission.Create {
		d, reason, err := p.authz.Authorize(ctx, authorizer.Attributes{
			User: a.UserInfo, Verb: "delete", Namespace: a.Namespace,
			APIGroup: a.Resource.Group, APIVersion: a.Resource.Version, Resource: a.Resource.Resource,
			Subresource: a.Subresource, Name: a.Name, ResourceRequest: true,
		})
		if d != authorizer.DecisionAllow {
			return forbidden.New(a, fmt.Errorf("cannot set an ownerRef on a resource you can't delete: %v, %v", reason, err))
		}
	}
	for _, ref := range newBlockingRefs(a.Object, a.OldObject) {
		records, err := p.ownerFinalizerChecks(ref, a)
		if err != nil {
			return forbidden.New(a, fmt.Errorf("cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion %s Kind %s: %v", ref.APIVersion, ref.Kind, err))
		}
		for _, r := range records {
			d, reason, err := p.authz.Authorize(ctx, r)
			if d != authorizer.DecisionAllow {
				return forbidden.New(a, fmt.Errorf("cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: %v, %v", reason, err))
			}
		}
	}
	return nil
}

// ownerFinalizerChecks are the `update <owner>/finalizers` checks for ref,
// one per resource its kind maps to.
func (p *Plugin) ownerFinalizerChecks(ref metav1.OwnerReference, a *admission.Attributes) ([]authorizer.Attributes, error) {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return nil, err
	}
	mappings, err := p.mapper.RESTMappings(schema.GroupKind{Group: gv.Group, Kind: ref.Kind}, gv.Version)
	if err != nil {
		return nil, err
	}
	var out []authorizer.Attributes
	for _, m := range mappings {
		r := authorizer.Attributes{
			User: a.UserInfo, Verb: "update",
			APIGroup: m.Resource.Group, APIVersion: m.Resource.Version, Resource: m.Resource.Resource,
			Subresource: "finalizers", Name: ref.Name, ResourceRequest: true,
		}
		if m.Scope != nil && m.Scope.Name() == meta.RESTScopeNameNamespace {
			r.Namespace = a.Namespace
		}
		out = append(out, r)
	}
	return out, nil
}

// changesOwnerReferences: a new object with references, or an update
// whose references differ in any way.
func changesOwnerReferences(obj, old runtime.Object) bool {
	n, err := meta.Accessor(obj)
	if err != nil {
		return false
	}
	if old == nil {
		return len(n.GetOwnerReferences()) > 0
	}
	o, err := meta.Accessor(old)
	if err != nil {
		return false
	}
	oldRefs, newRefs := o.GetOwnerReferences(), n.GetOwnerReferences()
	if len(oldRefs) != len(newRefs) {
		return true
	}
	for i := range oldRefs {
		if !apiequality.Semantic.DeepEqual(oldRefs[i], newRefs[i]) {
			return true
		}
	}
	return false
}

// newBlockingRefs are the references that block their owner's deletion
// and did not before (new ones, or ones turned to true).
func newBlockingRefs(obj, old runtime.Object) []metav1.OwnerReference {
	n, err := meta.Accessor(obj)
	if err != nil {
		return nil
	}
	var blocking []metav1.OwnerReference
	for _, r := range n.GetOwnerReferences() {
		if r.BlockOwnerDeletion != nil && *r.BlockOwnerDeletion {
			blocking = append(blocking, r)
		}
	}
	if len(blocking) == 0 || old == nil {
		return blocking
	}
	o, err := meta.Accessor(old)
	if err != nil {
		return blocking
	}
	before := map[types.UID]metav1.OwnerReference{}
	for _, r := range o.GetOwnerReferences() {
		before[r.UID] = r
	}
	var out []metav1.OwnerReference
	for _, r := range blocking {
		prev, ok := before[r.UID]
		if !ok || prev.BlockOwnerDeletion == nil || !*prev.BlockOwnerDeletion {
			out = append(out, r)
		}
	}
	return out
}
