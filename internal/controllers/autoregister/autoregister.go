// Package autoregister keeps the local APIServices of kube-apiserver: one
// apiregistration.k8s.io/v1 APIService for every built-in group version
// (synced once, at start) and one for every served version of a
// CustomResourceDefinition (synced as CRDs come and go). The objects it
// manages carry upstream's kube-aggregator.kubernetes.io/automanaged
// label: "onstart" or "true".
package autoregister

import (
	"context"
	"log/slog"
	"sync"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	apiregistrationclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset/typed/apiregistration/v1"
	apiregistrationinformers "k8s.io/kube-aggregator/pkg/client/informers/externalversions/apiregistration/v1"
	apiregistrationlisters "k8s.io/kube-aggregator/pkg/client/listers/apiregistration/v1"

	"github.com/kapi-dev/kapi/internal/controllers/worker"
)

// ManagedLabel says how an APIService is synced, as upstream names it.
const ManagedLabel = "kube-aggregator.kubernetes.io/automanaged"

// The values of ManagedLabel.
const (
	manageOnStart      = "onstart"
	manageContinuously = "true"
)

// Controller creates, updates and deletes the APIServices it is asked to
// keep.
type Controller struct {
	client apiregistrationclient.APIServicesGetter
	lister apiregistrationlisters.APIServiceLister
	synced cache.InformerSynced
	queue  workqueue.TypedRateLimitingInterface[string]
	logger *slog.Logger

	mu sync.RWMutex
	// desired are the APIServices to keep, by name.
	desired map[string]*apiregistrationv1.APIService
	// atStart are the names of the onstart APIServices that existed
	// when the cache first synced: only those may be updated or deleted.
	atStart map[string]bool
	// done are the names synced successfully at least once.
	done map[string]bool
}

// New returns a controller over the APIService informer, writing through
// client.
func New(informer apiregistrationinformers.APIServiceInformer, client apiregistrationclient.APIServicesGetter, logger *slog.Logger) (*Controller, error) {
	c := &Controller{
		client:  client,
		lister:  informer.Lister(),
		synced:  informer.Informer().HasSynced,
		queue:   worker.NewQueue("autoregister"),
		logger:  logger,
		desired: map[string]*apiregistrationv1.APIService{},
		atStart: map[string]bool{},
		done:    map[string]bool{},
	}
	enqueue := func(obj any) {
		if s, ok := obj.(*apiregistrationv1.APIService); ok {
			c.queue.Add(s.Name)
		} else if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			c.queue.Add(t.Key)
		}
	}
	_, err := informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
		DeleteFunc: enqueue,
	})
	return c, err
}

// AddOnStart asks for s to be created, or brought to its spec, once.
func (c *Controller) AddOnStart(s *apiregistrationv1.APIService) { c.add(s, manageOnStart) }

// Add asks for s to be kept, and deleted once Remove is called.
func (c *Controller) Add(s *apiregistrationv1.APIService) { c.add(s, manageContinuously) }

// OnStart is s as AddOnStart's first sync creates it when it is missing:
// a copy labeled to be synced once, at start.
func OnStart(s *apiregistrationv1.APIService) *apiregistrationv1.APIService {
	return labeled(s, manageOnStart)
}

func labeled(s *apiregistrationv1.APIService, mode string) *apiregistrationv1.APIService {
	s = s.DeepCopy()
	if s.Labels == nil {
		s.Labels = map[string]string{}
	}
	s.Labels[ManagedLabel] = mode
	return s
}

func (c *Controller) add(s *apiregistrationv1.APIService, mode string) {
	s = labeled(s, mode)
	c.mu.Lock()
	c.desired[s.Name] = s
	c.mu.Unlock()
	c.queue.Add(s.Name)
}

// Remove stops keeping the APIService name; one this controller manages
// continuously is deleted.
func (c *Controller) Remove(name string) {
	c.mu.Lock()
	delete(c.desired, name)
	c.mu.Unlock()
	c.queue.Add(name)
}

// Run waits for the cache, records the APIServices present at start and
// syncs until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	if !cache.WaitForCacheSync(ctx.Done(), c.synced) {
		c.queue.ShutDown()
		return
	}
	existing, err := c.lister.List(labels.Everything())
	if err != nil {
		c.logger.Error("listing APIServices", "err", err)
	}
	c.mu.Lock()
	for _, s := range existing {
		if s.Labels[ManagedLabel] == manageOnStart {
			c.atStart[s.Name] = true
		}
		c.queue.Add(s.Name)
	}
	c.mu.Unlock()
	worker.Run(ctx, c.queue, workers, c.logger, c.sync)
}

// sync brings the APIService name to what is desired, following
// upstream's rules: an onstart object is written once, and only if it
// existed at start or is missing; a continuously managed one is kept and
// deleted when no longer desired; an object without the label is never
// touched.
func (c *Controller) sync(ctx context.Context, name string) (err error) {
	c.mu.RLock()
	desired, synced, atStart := c.desired[name], c.done[name], c.atStart[name]
	c.mu.RUnlock()
	if !synced {
		defer func() {
			if err == nil {
				c.mu.Lock()
				c.done[name] = true
				c.mu.Unlock()
			}
		}()
	}
	current, err := c.lister.Get(name)
	switch {
	case err != nil && !apierrors.IsNotFound(err):
		return err
	case apierrors.IsNotFound(err) && desired == nil:
		return nil
	case desired != nil && desired.Labels[ManagedLabel] == manageOnStart && synced:
		return nil
	case apierrors.IsNotFound(err):
		_, err := c.client.APIServices().Create(ctx, desired, metav1.CreateOptions{})
		return ignore(err, apierrors.IsAlreadyExists)
	}
	mode := current.Labels[ManagedLabel]
	switch {
	case mode != manageOnStart && mode != manageContinuously:
		return nil
	case mode == manageOnStart && (!atStart || synced):
		return nil
	case desired == nil:
		opts := metav1.DeleteOptions{Preconditions: metav1.NewUIDPreconditions(string(current.UID))}
		return ignore(c.client.APIServices().Delete(ctx, name, opts), apierrors.IsNotFound, apierrors.IsConflict)
	case equality.Semantic.DeepEqual(current.Spec, desired.Spec):
		return nil
	}
	update := current.DeepCopy()
	update.Spec = desired.Spec
	_, err = c.client.APIServices().Update(ctx, update, metav1.UpdateOptions{})
	return ignore(err, apierrors.IsNotFound, apierrors.IsConflict)
}

// ignore is err unless one of the predicates holds for it: those mean the
// object changed meanwhile, and its event syncs it again.
func ignore(err error, preds ...func(error) bool) error {
	for _, p := range preds {
		if p(err) {
			return nil
		}
	}
	return err
}
