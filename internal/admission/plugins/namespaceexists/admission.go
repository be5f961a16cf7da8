// Package namespaceexists is the NamespaceExists admission plugin: a
// write of a namespaced object is refused when its namespace does not
// exist (NamespaceLifecycle does this and more; upstream keeps both).
package namespaceexists

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/admission"
)

// PluginName is the name used by --enable-admission-plugins.
const PluginName = "NamespaceExists"

// Getter reads a namespace (the informer's cache, then storage).
type Getter func(ctx context.Context, name string) (*corev1.Namespace, error)

// Plugin is the NamespaceExists admission plugin.
type Plugin struct{ get Getter }

var _ admission.ValidationInterface = (*Plugin)(nil)

// New returns the plugin.
func New(get Getter) *Plugin { return &Plugin{get: get} }

var namespaces = schema.GroupResource{Resource: "namespaces"}

// Validate refuses creates, updates and deletes in a missing namespace.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	if a.Namespace == "" || a.Kind.GroupKind() == (schema.GroupKind{Kind: "Namespace"}) || a.Resource.GroupResource() == namespaces {
		return nil
	}
	switch a.Operation {
	case admission.Create, admission.Update, admission.Delete:
	default:
		return nil
	}
	if _, err := p.get(ctx, a.Namespace); err != nil {
		if apierrors.IsNotFound(err) {
			return apierrors.NewNotFound(namespaces, a.Namespace)
		}
		return apierrors.NewInternalError(err)
	}
	return nil
}
