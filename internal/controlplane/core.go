package controlplane

import (
	"context"
	"errors"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	nsregistry "github.com/kapi-dev/kapi/internal/registry/core/namespace"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// coreStorage is the REST storage of every built-in resource, by group.
type coreStorage struct {
	groups     []rest.APIGroupInfo
	namespaces *nsregistry.REST
	finalize   *nsregistry.FinalizeREST
}

// newCoreStorage builds the storage of the built-in groups.
func newCoreStorage(c *Config, scheme *runtime.Scheme, getter generic.RESTOptionsGetter, probes map[string]func(context.Context) error, sec *security) (*coreStorage, error) {
	b := &catalogBuilder{config: c, scheme: scheme, getter: getter, probes: probes, security: sec}
	groups, err := b.build()
	if err != nil {
		return nil, err
	}
	cs := &coreStorage{groups: groups, namespaces: b.namespaces, finalize: b.finalize}
	return cs, nil
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
// It looks in the watch cache first: they nearly always exist (the seed or
// an earlier start made them), and a create refused as AlreadyExists
// costs an etcd round trip, several times per start.
func (cs *coreStorage) ensureSystemNamespaces(ctx context.Context) error {
	return cs.writeSystemNamespaces(ctx, true)
}

// createSystemNamespaces is ensureSystemNamespaces on storage known to be
// fresh (the seed's): no read first. Before the watch caches start such a
// read goes to etcd, and there a linearizable read waits for the seed's
// large commits to be applied: 6-8 ms each, on the path to serving.
func (cs *coreStorage) createSystemNamespaces(ctx context.Context) error {
	return cs.writeSystemNamespaces(ctx, false)
}

func (cs *coreStorage) writeSystemNamespaces(ctx context.Context, lookFirst bool) error {
	// All at once: on etcd concurrent creates share a commit (and its
	// fsync) where one after another each waited for its own.
	errs := make([]error, len(systemNamespaces))
	var wg sync.WaitGroup
	for i, name := range systemNamespaces {
		wg.Go(func() {
			if lookFirst {
				if _, err := cs.namespaces.Get(ctx, name, &metav1.GetOptions{ResourceVersion: "0"}); err == nil {
					return
				}
			}
			_, err := cs.namespaces.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
			if err != nil && !apierrors.IsAlreadyExists(err) {
				errs[i] = fmt.Errorf("creating namespace %s: %w", name, err)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}
