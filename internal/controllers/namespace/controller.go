// Package namespace is the namespace deletion controller: when a namespace is
// marked for deletion it deletes everything in it, removes the "kubernetes"
// finalizer, and deletes the namespace for good. kube-apiserver leaves this
// to kube-controller-manager; kapi runs it in-process so it is useful alone.
package namespace

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NamespaceStorage is what the controller needs of the namespaces resource.
type NamespaceStorage interface {
	rest.Getter
	rest.Lister
	rest.Watcher
	rest.GracefulDeleter
}

// ContentStorage is a namespaced resource whose objects the controller
// deletes.
type ContentStorage interface {
	rest.Lister
	rest.CollectionDeleter
}

// Controller empties and finalizes terminating namespaces.
type Controller struct {
	namespaces NamespaceStorage
	finalize   rest.Updater
	contents   map[string]ContentStorage
	logger     *slog.Logger
	// retry is how long to wait before looking at a namespace again when
	// content is still being removed (objects with finalizers).
	retry time.Duration

	mu      sync.Mutex
	pending map[string]bool
	wake    chan struct{}
}

// New returns a controller. contents maps resource names to the storage of
// every namespaced resource.
func New(namespaces NamespaceStorage, finalize rest.Updater, contents map[string]ContentStorage, logger *slog.Logger) *Controller {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Controller{
		namespaces: namespaces,
		finalize:   finalize,
		contents:   contents,
		logger:     logger,
		retry:      time.Second,
		pending:    map[string]bool{},
		wake:       make(chan struct{}, 1),
	}
}

// Run watches namespaces until ctx is done.
func (c *Controller) Run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		c.work(ctx)
	}()
	for ctx.Err() == nil {
		if err := c.watch(ctx); err != nil && ctx.Err() == nil {
			c.logger.Warn("namespace controller watch ended", "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(c.retry):
			}
		}
	}
	wg.Wait()
}

// watch lists terminating namespaces, then follows changes.
func (c *Controller) watch(ctx context.Context) error {
	list, err := c.namespaces.List(ctx, &metainternalversion.ListOptions{})
	if err != nil {
		return err
	}
	nsList, ok := list.(*corev1.NamespaceList)
	if !ok {
		return fmt.Errorf("unexpected list type %T", list)
	}
	for i := range nsList.Items {
		c.observe(&nsList.Items[i])
	}
	w, err := c.namespaces.Watch(ctx, &metainternalversion.ListOptions{ResourceVersion: nsList.ResourceVersion, Watch: true})
	if err != nil {
		return err
	}
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.ResultChan():
			if !ok {
				return fmt.Errorf("watch closed")
			}
			if ev.Type == watch.Error {
				return apierrors.FromObject(ev.Object)
			}
			obj := ev.Object
			// The watch cache hands out shared wrappers; read the object inside.
			if co, ok := obj.(runtime.CacheableObject); ok {
				obj = co.GetObject()
			}
			if ns, ok := obj.(*corev1.Namespace); ok && ev.Type != watch.Deleted {
				c.observe(ns)
			}
		}
	}
}

func (c *Controller) observe(ns *corev1.Namespace) {
	if ns.DeletionTimestamp == nil {
		return
	}
	c.enqueue(ns.Name)
}

func (c *Controller) enqueue(name string) {
	c.mu.Lock()
	c.pending[name] = true
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// work processes queued namespaces one at a time.
func (c *Controller) work(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.wake:
		}
		c.mu.Lock()
		names := make([]string, 0, len(c.pending))
		for n := range c.pending {
			names = append(names, n)
		}
		clear(c.pending)
		c.mu.Unlock()
		slices.Sort(names)
		for _, name := range names {
			if err := c.sync(ctx, name); err != nil && ctx.Err() == nil {
				c.logger.Info("namespace not finished yet", "namespace", name, "reason", err)
				time.AfterFunc(c.retry, func() { c.enqueue(name) })
			}
		}
	}
}

// sync moves one terminating namespace a step towards deletion.
func (c *Controller) sync(ctx context.Context, name string) error {
	obj, err := c.namespaces.Get(ctx, name, &metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	ns := obj.(*corev1.Namespace)
	if ns.DeletionTimestamp == nil {
		return nil
	}
	if slices.Contains(ns.Spec.Finalizers, corev1.FinalizerKubernetes) {
		if err := c.deleteContent(ctx, name); err != nil {
			return err
		}
		if err := c.removeFinalizer(ctx, ns); err != nil {
			return err
		}
	}
	uid := ns.UID
	_, _, err = c.namespaces.Delete(ctx, name, rest.ValidateAllObjectFunc, &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	return err
}

// deleteContent deletes every object in the namespace and reports an error
// while any remain (objects held by their own finalizers).
func (c *Controller) deleteContent(ctx context.Context, namespace string) error {
	nsCtx := request.WithNamespace(ctx, namespace)
	var remaining []string
	for name, s := range c.contents {
		if _, err := s.DeleteCollection(nsCtx, rest.ValidateAllObjectFunc, &metav1.DeleteOptions{}, &metainternalversion.ListOptions{}); err != nil {
			return fmt.Errorf("deleting %s: %w", name, err)
		}
		list, err := s.List(nsCtx, &metainternalversion.ListOptions{})
		if err != nil {
			return fmt.Errorf("listing %s: %w", name, err)
		}
		if n := meta.LenList(list); n > 0 {
			remaining = append(remaining, fmt.Sprintf("%s has %d", name, n))
		}
	}
	if len(remaining) > 0 {
		slices.Sort(remaining)
		return fmt.Errorf("content remains: %v", remaining)
	}
	return nil
}

func (c *Controller) removeFinalizer(ctx context.Context, ns *corev1.Namespace) error {
	_, _, err := c.finalize.Update(ctx, ns.Name, dropKubernetesFinalizer{}, rest.ValidateAllObjectFunc, rest.ValidateAllObjectUpdateFunc, false, &metav1.UpdateOptions{})
	return err
}

// dropKubernetesFinalizer computes the finalized namespace from the current
// one, so a concurrent change is retried rather than lost.
type dropKubernetesFinalizer struct{}

func (dropKubernetesFinalizer) Preconditions() *metav1.Preconditions { return nil }

func (dropKubernetesFinalizer) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	ns, ok := old.(*corev1.Namespace)
	if !ok {
		return nil, fmt.Errorf("unexpected object %T", old)
	}
	ns = ns.DeepCopy()
	ns.Spec.Finalizers = slices.DeleteFunc(ns.Spec.Finalizers, func(f corev1.FinalizerName) bool {
		return f == corev1.FinalizerKubernetes
	})
	return ns, nil
}
