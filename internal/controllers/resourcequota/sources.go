package resourcequota

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/kapi-dev/kapi/internal/quota"
)

// syncWait bounds how long a newly watched resource may take to list.
const syncWait = 30 * time.Second

// InformerSources lists pods, services and claims (whose specs quota
// reads) from the shared typed informers, and any other resource, custom
// ones included, from metadata-only informers started the first time a
// quota counts it. Deletions (and updates that stop a charge) are
// reported to the controller's Replenish.
type InformerSources struct {
	typed     informers.SharedInformerFactory
	metadata  metadatainformer.SharedInformerFactory
	mapper    meta.ResettableRESTMapper
	replenish func(gr schema.GroupResource, namespace string)
	clock     clock.PassiveClock
	stop      <-chan struct{}

	mu      sync.Mutex
	listers map[schema.GroupResource]source
	synced  []cache.InformerSynced
}

// source is one resource's lister and whether it has listed everything.
type source struct {
	lister cache.GenericLister
	synced cache.InformerSynced
}

// NewInformerSources registers the typed informers in typed (before it
// starts); metadata informers start with stop.
func NewInformerSources(typed informers.SharedInformerFactory, md metadatainformer.SharedInformerFactory, mapper meta.ResettableRESTMapper,
	replenish func(schema.GroupResource, string), c clock.PassiveClock, stop <-chan struct{}) (*InformerSources, error) {
	s := &InformerSources{typed: typed, metadata: md, mapper: mapper, replenish: replenish, clock: c, stop: stop,
		listers: map[schema.GroupResource]source{}}
	core := typed.Core().V1()
	for _, t := range []struct {
		resource string
		inf      cache.SharedIndexInformer
		lister   cache.GenericLister
		stopped  func(old, cur any) bool
	}{
		{"pods", core.Pods().Informer(), nil, func(old, cur any) bool {
			o, ok1 := old.(*corev1.Pod)
			n, ok2 := cur.(*corev1.Pod)
			return ok1 && ok2 && quota.PodCharged(o, s.clock) && !quota.PodCharged(n, s.clock)
		}},
		{"services", core.Services().Informer(), nil, func(old, cur any) bool {
			o, ok1 := old.(*corev1.Service)
			n, ok2 := cur.(*corev1.Service)
			return ok1 && ok2 && quota.QuotaServiceType(o) != quota.QuotaServiceType(n)
		}},
		{"persistentvolumeclaims", core.PersistentVolumeClaims().Informer(), nil, func(old, cur any) bool {
			o, ok1 := old.(*corev1.PersistentVolumeClaim)
			n, ok2 := cur.(*corev1.PersistentVolumeClaim)
			return ok1 && ok2 && !o.Status.AllocatedResources.Storage().Equal(*n.Status.AllocatedResources.Storage())
		}},
	} {
		gr := schema.GroupResource{Resource: t.resource}
		if err := s.watch(gr, t.inf, t.stopped); err != nil {
			return nil, err
		}
		s.listers[gr] = source{cache.NewGenericLister(t.inf.GetIndexer(), gr), t.inf.HasSynced}
		s.synced = append(s.synced, t.inf.HasSynced)
	}
	return s, nil
}

// watch reports deletions of gr, and updates for which stopped says the
// object no longer counts.
func (s *InformerSources) watch(gr schema.GroupResource, inf cache.SharedIndexInformer, stopped func(old, cur any) bool) error {
	namespaceOf := func(obj any) string {
		key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
		if err != nil {
			return ""
		}
		ns, _, _ := cache.SplitMetaNamespaceKey(key)
		return ns
	}
	h := cache.ResourceEventHandlerFuncs{
		DeleteFunc: func(obj any) {
			if ns := namespaceOf(obj); ns != "" {
				s.replenish(gr, ns)
			}
		},
	}
	if stopped != nil {
		h.UpdateFunc = func(old, cur any) {
			if stopped(old, cur) {
				s.replenish(gr, namespaceOf(cur))
			}
		}
	}
	_, err := inf.AddEventHandler(h)
	return err
}

// HasSynced reports whether every informer known so far has listed.
func (s *InformerSources) HasSynced() bool {
	s.mu.Lock()
	synced := append([]cache.InformerSynced(nil), s.synced...)
	s.mu.Unlock()
	for _, f := range synced {
		if !f() {
			return false
		}
	}
	return true
}

// ListFunc lists gr by namespace, starting a metadata informer for it the
// first time.
func (s *InformerSources) ListFunc(ctx context.Context, gr schema.GroupResource) (quota.ListFunc, error) {
	src, err := s.source(ctx, gr)
	if err != nil {
		return nil, err
	}
	if !src.synced() {
		return nil, fmt.Errorf("%s not yet synced", gr)
	}
	return func(namespace string) ([]runtime.Object, error) {
		return src.lister.ByNamespace(namespace).List(labels.Everything())
	}, nil
}

func (s *InformerSources) source(ctx context.Context, gr schema.GroupResource) (source, error) {
	s.mu.Lock()
	l, ok := s.listers[gr]
	s.mu.Unlock()
	if ok {
		return l, nil
	}
	gvr, err := s.mapper.ResourceFor(gr.WithVersion(""))
	if err != nil {
		// A resource served since the mapper last looked.
		s.mapper.Reset()
		if gvr, err = s.mapper.ResourceFor(gr.WithVersion("")); err != nil {
			return source{}, fmt.Errorf("unable to find the resource %s: %w", gr, err)
		}
	}
	inf := s.metadata.ForResource(gvr)
	s.mu.Lock()
	if l, ok := s.listers[gr]; ok {
		s.mu.Unlock()
		return l, nil
	}
	if err := s.watch(gr, inf.Informer(), nil); err != nil {
		s.mu.Unlock()
		return source{}, err
	}
	src := source{inf.Lister(), inf.Informer().HasSynced}
	s.listers[gr] = src
	s.synced = append(s.synced, src.synced)
	s.mu.Unlock()
	s.metadata.Start(s.stop)
	wctx, cancel := context.WithTimeout(ctx, syncWait)
	defer cancel()
	cache.WaitForCacheSync(wctx.Done(), src.synced)
	return src, nil
}
