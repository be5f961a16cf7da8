package validating

import (
	"context"
	"errors"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/labels"
	admissionregistrationinformers "k8s.io/client-go/informers/admissionregistration/v1"
	admissionregistrationlisters "k8s.io/client-go/listers/admissionregistration/v1"
	"k8s.io/client-go/tools/cache"
)

// hook is one policy with its compiled form and its bindings.
type hook struct {
	policy   *admissionregistrationv1.ValidatingAdmissionPolicy
	compiled *compiled
	bindings []*admissionregistrationv1.ValidatingAdmissionPolicyBinding
}

// source keeps the policies and bindings of the informers as a snapshot
// of hooks, rebuilt on the first request after any of them changed.
// Compiled policies are kept by uid and generation across rebuilds.
type source struct {
	policies    admissionregistrationlisters.ValidatingAdmissionPolicyLister
	bindings    admissionregistrationlisters.ValidatingAdmissionPolicyBindingLister
	hasSynced   []cache.InformerSynced
	readyWait   time.Duration
	compileFunc func(*admissionregistrationv1.ValidatingAdmissionPolicy) *compiled

	dirty atomic.Bool
	snap  atomic.Pointer[[]hook]

	mu    sync.Mutex
	cache map[string]*compiled // by uid
}

func newSource(pi admissionregistrationinformers.ValidatingAdmissionPolicyInformer, bi admissionregistrationinformers.ValidatingAdmissionPolicyBindingInformer) (*source, error) {
	s := &source{
		policies:    pi.Lister(),
		bindings:    bi.Lister(),
		readyWait:   10 * time.Second,
		compileFunc: compile,
		cache:       map[string]*compiled{},
	}
	s.dirty.Store(true)
	h := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { s.dirty.Store(true) },
		UpdateFunc: func(any, any) { s.dirty.Store(true) },
		DeleteFunc: func(any) { s.dirty.Store(true) },
	}
	for _, inf := range []cache.SharedIndexInformer{pi.Informer(), bi.Informer()} {
		reg, err := inf.AddEventHandler(h)
		if err != nil {
			return nil, err
		}
		s.hasSynced = append(s.hasSynced, reg.HasSynced)
	}
	return s, nil
}

var errNotReady = errors.New("not yet ready to handle request")

// hooks returns the current snapshot; it waits (up to readyWait) for the
// informers' first lists.
func (s *source) hooks(ctx context.Context) ([]hook, error) {
	if !s.dirty.Load() {
		if h := s.snap.Load(); h != nil {
			return *h, nil
		}
	}
	if !s.synced() {
		wctx, cancel := context.WithTimeout(ctx, s.readyWait)
		ok := cache.WaitForCacheSync(wctx.Done(), s.hasSynced...)
		cancel()
		if !ok {
			return nil, errNotReady
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dirty.Swap(false) || s.snap.Load() == nil {
		h, err := s.build()
		if err != nil {
			s.dirty.Store(true)
			return nil, err
		}
		s.snap.Store(&h)
	}
	return *s.snap.Load(), nil
}

func (s *source) synced() bool {
	for _, f := range s.hasSynced {
		if !f() {
			return false
		}
	}
	return true
}

func (s *source) build() ([]hook, error) {
	policies, err := s.policies.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	bindings, err := s.bindings.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	byPolicy := map[string][]*admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
	for _, b := range bindings {
		byPolicy[b.Spec.PolicyName] = append(byPolicy[b.Spec.PolicyName], b)
	}
	seen := map[string]bool{}
	var out []hook
	for _, p := range policies {
		bs := byPolicy[p.Name]
		if len(bs) == 0 {
			continue
		}
		sort.Slice(bs, func(i, j int) bool { return bs[i].Name < bs[j].Name })
		uid := string(p.UID)
		seen[uid] = true
		c := s.cache[uid]
		if c == nil || c.generation != p.Generation {
			c = s.compileFunc(p)
			s.cache[uid] = c
		}
		out = append(out, hook{policy: p, compiled: c, bindings: bs})
	}
	for uid := range s.cache {
		if !seen[uid] {
			delete(s.cache, uid)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].policy.Name < out[j].policy.Name })
	return out, nil
}
