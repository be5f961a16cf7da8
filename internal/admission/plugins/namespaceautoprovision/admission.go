// Package namespaceautoprovision is the NamespaceAutoProvision admission
// plugin: creating an object in a namespace that does not exist creates
// the namespace first.
package namespaceautoprovision

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/admission/plugins/internal/podutil"
)

// PluginName is the name used by --enable-admission-plugins.
const PluginName = "NamespaceAutoProvision"

// Options are what the plugin reads and writes namespaces with.
type Options struct {
	// Get reads a namespace from the informer's cache; Synced tells
	// whether that cache has filled (nil: always).
	Get    func(name string) (*corev1.Namespace, error)
	Synced func() bool
	// Create creates a namespace.
	Create func(ctx context.Context, ns *corev1.Namespace) error
}

// Plugin is the NamespaceAutoProvision admission plugin.
type Plugin struct{ o Options }

var _ admission.MutationInterface = (*Plugin)(nil)

// New returns the plugin.
func New(o Options) *Plugin { return &Plugin{o: o} }

// Admit creates the namespace of a create request when it is missing; a
// dry run has no side effects, so it creates nothing.
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) error {
	if a.Operation != admission.Create || a.Namespace == "" || a.DryRun ||
		a.Kind.GroupKind() == (schema.GroupKind{Kind: "Namespace"}) || a.Resource.GroupResource() == (schema.GroupResource{Resource: "namespaces"}) {
		return nil
	}
	if !podutil.WaitReady(ctx, p.o.Synced) {
		return podutil.Forbidden(a, errors.New("not yet ready to handle request"))
	}
	_, err := p.o.Get(a.Namespace)
	if err == nil {
		return nil
	}
	if !apierrors.IsNotFound(err) {
		return podutil.Forbidden(a, err)
	}
	err = p.o.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: a.Namespace}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return podutil.Forbidden(a, err)
	}
	return nil
}
