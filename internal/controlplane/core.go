package controlplane

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/controllers/namespace"
	"github.com/kapi-dev/kapi/internal/registry/coordination/lease"
	"github.com/kapi-dev/kapi/internal/registry/core/configmap"
	"github.com/kapi-dev/kapi/internal/registry/core/event"
	nsregistry "github.com/kapi-dev/kapi/internal/registry/core/namespace"
	"github.com/kapi-dev/kapi/internal/registry/core/secret"
	"github.com/kapi-dev/kapi/internal/registry/core/serviceaccount"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// coreStorage is the REST storage of every built-in resource, by group.
type coreStorage struct {
	groups     []apiGroup
	namespaces *nsregistry.REST
	finalize   *nsregistry.FinalizeREST
	// namespaced lists the storage of every namespaced resource, for the
	// namespace controller.
	namespaced map[string]namespace.ContentStorage
}

// newCoreStorage builds the storage of the built-in groups.
func newCoreStorage(scheme *runtime.Scheme, getter generic.RESTOptionsGetter) (*coreStorage, error) {
	ns, nsStatus, nsFinalize, err := nsregistry.NewREST(scheme, getter)
	if err != nil {
		return nil, fmt.Errorf("namespaces: %w", err)
	}
	cs := &coreStorage{namespaces: ns, finalize: nsFinalize, namespaced: map[string]namespace.ContentStorage{}}
	core := map[string]rest.Storage{
		"namespaces":          ns,
		"namespaces/status":   nsStatus,
		"namespaces/finalize": nsFinalize,
	}
	namespacedCore := []struct {
		name string
		new  func(*runtime.Scheme, generic.RESTOptionsGetter) (rest.StandardStorage, error)
	}{
		{"configmaps", adapt(configmap.NewREST)},
		{"secrets", adapt(secret.NewREST)},
		{"serviceaccounts", adapt(serviceaccount.NewREST)},
		{"events", adapt(event.NewREST)},
	}
	for _, r := range namespacedCore {
		s, err := r.new(scheme, getter)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.name, err)
		}
		core[r.name] = s
		cs.namespaced[r.name] = s
	}
	leases, err := lease.NewREST(scheme, getter)
	if err != nil {
		return nil, fmt.Errorf("leases: %w", err)
	}
	cs.namespaced["leases.coordination.k8s.io"] = leases
	cs.groups = []apiGroup{
		{name: "", versions: []string{"v1"}, storage: map[string]map[string]rest.Storage{"v1": core}},
		{name: "coordination.k8s.io", versions: []string{"v1"}, storage: map[string]map[string]rest.Storage{"v1": {"leases": leases}}},
	}
	return cs, nil
}

// adapt turns a typed NewREST into one returning the interface.
func adapt[T rest.StandardStorage](f func(*runtime.Scheme, generic.RESTOptionsGetter) (T, error)) func(*runtime.Scheme, generic.RESTOptionsGetter) (rest.StandardStorage, error) {
	return func(s *runtime.Scheme, g generic.RESTOptionsGetter) (rest.StandardStorage, error) {
		return f(s, g)
	}
}

// getNamespace reads a namespace for admission.
func (cs *coreStorage) getNamespace(ctx context.Context, name string) (*corev1.Namespace, error) {
	obj, err := cs.namespaces.Get(ctx, name, &metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	ns, ok := obj.(*corev1.Namespace)
	if !ok {
		return nil, fmt.Errorf("unexpected namespace object %T", obj)
	}
	return ns, nil
}

// systemNamespaces are created at start and may not be deleted (except
// kube-node-lease, as upstream).
var systemNamespaces = []string{metav1.NamespaceDefault, metav1.NamespaceSystem, metav1.NamespacePublic, corev1.NamespaceNodeLease}

// ensureSystemNamespaces creates the system namespaces that do not exist.
func (cs *coreStorage) ensureSystemNamespaces(ctx context.Context) error {
	for _, name := range systemNamespaces {
		_, err := cs.namespaces.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating namespace %s: %w", name, err)
		}
	}
	return nil
}
