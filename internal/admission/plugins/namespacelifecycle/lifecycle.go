// Package namespacelifecycle is the NamespaceLifecycle admission plugin:
// namespaced objects may only be created in namespaces that exist and are not
// terminating, and the system namespaces may not be deleted.
package namespacelifecycle

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/admission"
)

// PluginName is the name used by --enable-admission-plugins.
const PluginName = "NamespaceLifecycle"

// NamespaceGetter reads a namespace by name.
type NamespaceGetter func(ctx context.Context, name string) (*corev1.Namespace, error)

// Plugin enforces the namespace lifecycle.
type Plugin struct {
	getNamespace NamespaceGetter
	immortal     map[string]bool
}

var _ admission.ValidationInterface = (*Plugin)(nil)

// New returns the plugin. immortal names the namespaces that may not be
// deleted (upstream: default, kube-system, kube-public).
func New(get NamespaceGetter, immortal ...string) *Plugin {
	p := &Plugin{getNamespace: get, immortal: map[string]bool{}}
	for _, n := range immortal {
		p.immortal[n] = true
	}
	return p
}

var namespacesResource = schema.GroupResource{Resource: "namespaces"}

// Validate rejects writes that the namespace's state does not allow.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	if a.Resource.Group == "" && a.Resource.Resource == "namespaces" {
		if a.Operation == admission.Delete && a.Subresource == "" && p.immortal[a.Name] {
			return apierrors.NewForbidden(namespacesResource, a.Name, fmt.Errorf("this namespace may not be deleted"))
		}
		return nil
	}
	if a.Namespace == "" || a.Operation != admission.Create {
		return nil
	}
	ns, err := p.getNamespace(ctx, a.Namespace)
	if err != nil {
		if apierrors.IsNotFound(err) {
			return apierrors.NewNotFound(namespacesResource, a.Namespace)
		}
		return apierrors.NewInternalError(err)
	}
	if ns.Status.Phase == corev1.NamespaceTerminating || ns.DeletionTimestamp != nil {
		return terminatingError(a)
	}
	return nil
}

// terminatingError is the 403 upstream answers for new content in a
// namespace being deleted, with the NamespaceTerminating cause clients test for.
func terminatingError(a *admission.Attributes) error {
	err := apierrors.NewForbidden(a.Resource.GroupResource(), a.Name,
		fmt.Errorf("unable to create new content in namespace %s because it is being terminated", a.Namespace))
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{
		Type:    corev1.NamespaceTerminatingCause,
		Message: fmt.Sprintf("namespace %s is being terminated", a.Namespace),
		Field:   "metadata.namespace",
	})
	return err
}
