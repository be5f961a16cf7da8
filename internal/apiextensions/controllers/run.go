// Package controllers runs the CustomResourceDefinition controllers of the
// extensions server against the CRD storage: naming (NamesAccepted and
// status.acceptedNames), establishing (Established), the
// NonStructuralSchema condition, and the cleanup finalizer that deletes a
// CRD's custom resources before the CRD goes. One watch on the CRD storage
// feeds two workers: one for status, one for the slower cleanup, so a
// deletion that waits on custom resources never delays new CRDs.
package controllers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Config is what the controllers work on.
type Config struct {
	// CRDs is the main storage (list/watch/get/update), Status the status
	// subresource (update).
	CRDs interface {
		rest.Lister
		rest.Getter
		rest.Watcher
		rest.Updater
	}
	Status rest.Updater
	// Instances returns the storage of a CRD's custom resources (lister +
	// collection deleter) or nil when none is served; used by the cleanup
	// finalizer.
	Instances func(group, resource string) rest.Storage
	// Structural reports why a schema is not structural (nil when it is);
	// from internal/apiextensions/schema.NewStructural.
	Structural func(crd *apiextv1.CustomResourceDefinition) []string
	// Logger receives progress and errors; nil discards.
	Logger *slog.Logger
}

// retryDelay is how long a failed sync, or a broken watch, waits before it
// is tried again.
const retryDelay = time.Second

type controller struct {
	crds interface {
		rest.Lister
		rest.Getter
		rest.Watcher
		rest.Updater
	}
	status     rest.Updater
	instances  func(group, resource string) rest.Storage
	structural func(*apiextv1.CustomResourceDefinition) []string
	logger     *slog.Logger
	now        func() metav1.Time

	cache          *cache
	statusQueue    *queue
	cleanupQueue   *queue
	lastGeneration map[string]judged // owned by the status worker
}

// Run runs the naming, establishing, non-structural-schema and cleanup
// finalizer controllers until ctx ends, and returns once they stopped.
func Run(ctx context.Context, c Config) error {
	if c.CRDs == nil || c.Status == nil {
		return errors.New("customresourcedefinition controllers need the CRD storage and its status storage")
	}
	logger := c.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	ctl := &controller{
		crds:           c.CRDs,
		status:         c.Status,
		instances:      c.Instances,
		structural:     c.Structural,
		logger:         logger,
		now:            metav1.Now,
		cache:          newCache(),
		statusQueue:    newQueue(),
		cleanupQueue:   newQueue(),
		lastGeneration: map[string]judged{},
	}
	ctl.run(ctx)
	return nil
}

func (c *controller) run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Go(func() { c.statusQueue.run(ctx, retryDelay, c.syncStatus, c.logError("status")) })
	wg.Go(func() { c.cleanupQueue.run(ctx, retryDelay, c.syncCleanup, c.logError("cleanup")) })
	for ctx.Err() == nil {
		if err := c.watch(ctx); err != nil && ctx.Err() == nil {
			c.logger.Warn("customresourcedefinition watch ended", "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(retryDelay):
			}
		}
	}
	wg.Wait()
}

func (c *controller) logError(worker string) func(string, error) {
	return func(name string, err error) {
		if errors.Is(err, errInstancesRemain) {
			c.logger.Info("waiting for custom resources to be removed", "crd", name)
			return
		}
		c.logger.Error("customresourcedefinition sync failed", "worker", worker, "crd", name, "err", err)
	}
}

// syncStatus brings one CRD's status up to date: names,
// Established, NonStructuralSchema, each step on the result of the last.
func (c *controller) syncStatus(ctx context.Context, name string) error {
	crd, err := c.get(ctx, name)
	if err != nil {
		return err
	}
	if crd == nil {
		delete(c.lastGeneration, name)
		return nil
	}
	c.cache.put(crd)
	steps := []func(context.Context, *apiextv1.CustomResourceDefinition) (*apiextv1.CustomResourceDefinition, error){
		c.syncNames, c.establish, c.syncNonStructural,
	}
	for _, step := range steps {
		if crd, err = step(ctx, crd); crd == nil || err != nil {
			return err
		}
	}
	return nil
}

// watch lists the CRDs, queues them all, and follows changes until the
// watch ends.
func (c *controller) watch(ctx context.Context) error {
	obj, err := c.crds.List(ctx, &metainternalversion.ListOptions{})
	if err != nil {
		return err
	}
	list, ok := obj.(*apiextv1.CustomResourceDefinitionList)
	if !ok {
		return fmt.Errorf("list of customresourcedefinitions returned %T", obj)
	}
	crds := make([]*apiextv1.CustomResourceDefinition, len(list.Items))
	for i := range list.Items {
		crds[i] = &list.Items[i]
	}
	for _, gone := range c.cache.replace(crds) {
		c.forget(gone)
	}
	for _, crd := range crds {
		c.observe(crd)
	}

	w, err := c.crds.Watch(ctx, &metainternalversion.ListOptions{Watch: true, ResourceVersion: list.ResourceVersion})
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
				return errors.New("watch closed")
			}
			if err := c.handle(ev); err != nil {
				return err
			}
		}
	}
}

func (c *controller) handle(ev watch.Event) error {
	if ev.Type == watch.Error {
		return apierrors.FromObject(ev.Object)
	}
	obj := ev.Object
	// The watch cache hands out shared wrappers; read the object inside.
	if co, ok := obj.(runtime.CacheableObject); ok {
		obj = co.GetObject()
	}
	crd, ok := obj.(*apiextv1.CustomResourceDefinition)
	if !ok {
		return nil // bookmarks
	}
	switch ev.Type {
	case watch.Added, watch.Modified:
		c.cache.put(crd)
		c.observe(crd)
	case watch.Deleted:
		c.cache.remove(crd)
		c.forget(crd)
	}
	return nil
}

// observe queues a CRD for the workers that have something to do with it.
func (c *controller) observe(crd *apiextv1.CustomResourceDefinition) {
	c.statusQueue.add(crd.Name)
	if needsCleanup(crd) {
		c.cleanupQueue.add(crd.Name)
	}
}

// forget reacts to a CRD that is gone: its names are free for its group,
// and the status worker drops what it remembered of it.
func (c *controller) forget(crd *apiextv1.CustomResourceDefinition) {
	c.statusQueue.add(crd.Name)
	c.requeueGroup(crd.Spec.Group, crd.Name)
}

// requeueGroup queues the other CRDs of group: names may have been freed.
func (c *controller) requeueGroup(group, except string) {
	for _, crd := range c.cache.group(group) {
		if crd.Name != except {
			c.statusQueue.add(crd.Name)
		}
	}
}
