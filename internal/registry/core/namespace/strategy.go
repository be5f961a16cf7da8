// Package namespace is the REST storage of core/v1 namespaces: the
// strategies of the main resource, namespaces/status and
// namespaces/finalize, and the storage whose DELETE starts termination
// instead of removing the namespace at once.
package namespace

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/core/validation"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how namespaces are created, updated and deleted through
// the main resource: spec.finalizers and status are server-owned there.
// Unlike rest.DefaultStrategy it is cluster-scoped, prepares writes and
// canonicalizes; warnings and the update rules are the defaults.
type Strategy struct {
	rest.DefaultStrategy
}

var (
	_ rest.RESTCreateStrategy = Strategy{}
	_ rest.RESTUpdateStrategy = Strategy{}
	_ rest.RESTDeleteStrategy = Strategy{}
	_ rest.RESTUpdateStrategy = StatusStrategy{}
	_ rest.RESTUpdateStrategy = FinalizeStrategy{}
)

// NewStrategy returns the namespace strategy; typer is the server's
// scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.DefaultStrategy{ObjectTyper: typer}}
}

// NamespaceScoped is false: namespaces are cluster-scoped.
func (Strategy) NamespaceScoped() bool { return false }

// PrepareForCreate makes a new namespace Active and adds the kubernetes
// finalizer, which the namespace controller removes once the content is
// gone. Defaulting cannot add it, as it is removed during the namespace's
// life.
func (Strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	ns := obj.(*corev1.Namespace)
	ns.Status = corev1.NamespaceStatus{Phase: corev1.NamespaceActive}
	if !slices.Contains(ns.Spec.Finalizers, corev1.FinalizerKubernetes) {
		ns.Spec.Finalizers = append(ns.Spec.Finalizers, corev1.FinalizerKubernetes)
	}
}

// PrepareForUpdate keeps spec.finalizers and status: they change only
// through namespaces/finalize and namespaces/status.
func (Strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	ns, oldNS := obj.(*corev1.Namespace), old.(*corev1.Namespace)
	ns.Spec.Finalizers = oldNS.Spec.Finalizers
	ns.Status = oldNS.Status
}

// Validate checks a new namespace.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateNamespace(obj.(*corev1.Namespace))
}

// ValidateUpdate checks the new namespace as on create, then the metadata
// changes.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	ns := obj.(*corev1.Namespace)
	errs := validation.ValidateNamespace(ns)
	return append(errs, validation.ValidateNamespaceUpdate(ns, old.(*corev1.Namespace))...)
}

// Canonicalize sets the kubernetes.io/metadata.name label to the name. It
// runs once the name is final, so namespaces created with generateName
// get the label too; defaulting covers reads.
func (Strategy) Canonicalize(obj runtime.Object) {
	ns := obj.(*corev1.Namespace)
	if ns.Labels == nil {
		ns.Labels = map[string]string{}
	}
	ns.Labels[corev1.LabelMetadataName] = ns.Name
}

// StatusStrategy is the update strategy of namespaces/status: only status
// (and metadata) change.
type StatusStrategy struct {
	Strategy
}

// PrepareForUpdate keeps the stored spec.
func (StatusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	obj.(*corev1.Namespace).Spec = old.(*corev1.Namespace).Spec
}

// ValidateUpdate checks that the phase agrees with deletionTimestamp.
func (StatusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateNamespaceStatusUpdate(obj.(*corev1.Namespace), old.(*corev1.Namespace))
}

// FinalizeStrategy is the update strategy of namespaces/finalize: only
// spec.finalizers (and metadata) change.
type FinalizeStrategy struct {
	Strategy
}

// PrepareForUpdate keeps the stored status.
func (FinalizeStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	obj.(*corev1.Namespace).Status = old.(*corev1.Namespace).Status
}

// ValidateUpdate checks the new finalizer names.
func (FinalizeStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateNamespaceFinalizeUpdate(obj.(*corev1.Namespace), old.(*corev1.Namespace))
}

// GetAttrs returns a namespace's labels and selectable fields:
// metadata.name, status.phase and the legacy "name", which upstream keeps
// for compatibility.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	ns, ok := obj.(*corev1.Namespace)
	if !ok {
		return nil, nil, fmt.Errorf("not a namespace: %T", obj)
	}
	ls, fs, err := generic.DefaultClusterScopedAttr(ns)
	if err != nil {
		return nil, nil, err
	}
	fs["name"] = ns.Name
	fs["status.phase"] = string(ns.Status.Phase)
	return ls, fs, nil
}

// ShouldDeleteDuringUpdate says whether an update of a namespace that is
// being deleted removes it: only when nothing holds it back any more,
// neither metadata.finalizers nor spec.finalizers. The generic rule looks
// at metadata.finalizers only, which would drop a namespace whose content
// the namespace controller has not yet removed.
func ShouldDeleteDuringUpdate(obj, existing runtime.Object) bool {
	ns, ok := obj.(*corev1.Namespace)
	if !ok || len(ns.Spec.Finalizers) > 0 || len(ns.Finalizers) > 0 {
		return false
	}
	old, ok := existing.(*corev1.Namespace)
	if !ok || old.DeletionTimestamp == nil {
		return false
	}
	grace := old.DeletionGracePeriodSeconds
	return grace == nil || *grace == 0
}
