package controlplane

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/controllers/namespace"
	nsregistry "github.com/kapi-dev/kapi/internal/registry/core/namespace"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// coreStorage is the REST storage of every built-in resource, by group.
type coreStorage struct {
	groups     []rest.APIGroupInfo
	namespaces *nsregistry.REST
	finalize   *nsregistry.FinalizeREST
	// namespaced lists the storage of every namespaced resource, for the
	// namespace controller.
	namespaced map[string]namespace.ContentStorage
}

// newCoreStorage builds the storage of the built-in groups.
func newCoreStorage(c *Config, scheme *runtime.Scheme, getter generic.RESTOptionsGetter, probes map[string]func(context.Context) error, sec *security) (*coreStorage, error) {
	b := &catalogBuilder{config: c, scheme: scheme, getter: getter, probes: probes, security: sec}
	groups, err := b.build()
	if err != nil {
		return nil, err
	}
	cs := &coreStorage{groups: groups, namespaces: b.namespaces, finalize: b.finalize, namespaced: namespacedContent(groups)}
	return cs, nil
}

// namespacedContent is the storage of every namespaced resource that can
// be listed and emptied, keyed "resource.group", for the namespace
// controller. A resource served in several versions or groups over one
// storage is visited once.
func namespacedContent(groups []rest.APIGroupInfo) map[string]namespace.ContentStorage {
	out := map[string]namespace.ContentStorage{}
	seen := map[rest.Storage]bool{}
	for _, g := range groups {
		for _, v := range g.Versions {
			for path, s := range g.Storage[v] {
				if seen[s] || isSubresource(path) {
					continue
				}
				seen[s] = true
				scoper, ok := s.(rest.Scoper)
				content, isContent := s.(namespace.ContentStorage)
				if !ok || !isContent || !scoper.NamespaceScoped() {
					continue
				}
				key := path
				if g.Group != "" {
					key += "." + g.Group
				}
				out[key] = content
			}
		}
	}
	return out
}

func isSubresource(path string) bool {
	for _, c := range path {
		if c == '/' {
			return true
		}
	}
	return false
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
