package webhook

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"

	"github.com/kapi-dev/kapi/internal/webhook"
)

// defaultTimeout is upstream's default timeoutSeconds.
const defaultTimeout = 10 * time.Second

// hook is one webhook of a configuration, mutating or validating, with its
// selectors parsed and its match conditions compiled.
type hook struct {
	// id is unique across configurations: "<configuration>/<index>".
	id                string
	name              string
	client            webhook.ClientConfig
	rules             []admissionregistrationv1.RuleWithOperations
	failurePolicy     admissionregistrationv1.FailurePolicyType
	matchPolicy       admissionregistrationv1.MatchPolicyType
	namespaceSelector labels.Selector
	objectSelector    labels.Selector
	sideEffects       admissionregistrationv1.SideEffectClass
	timeout           time.Duration
	reviewVersions    []string
	reinvoke          bool
	conditions        *matchConditions
	clientOnce        sync.Once
	clientVal         *webhook.Client
	clientErr         error
	// err is why the webhook cannot be used (a bad selector or match
	// condition); calling it fails under its failure policy.
	err error
}

// source keeps the webhooks of the configurations an informer holds,
// rebuilt after the informer changes: configurations sorted by name, then
// each one's webhooks in order, as upstream.
type source struct {
	synced     func() bool
	list       func() ([]*hook, error)
	generation atomic.Uint64
	mu         sync.Mutex
	current    atomic.Pointer[snapshot]
}

type snapshot struct {
	generation uint64
	hooks      []*hook
}

func newSource(informer cache.SharedIndexInformer, list func() ([]*hook, error)) (*source, error) {
	s := &source{synced: informer.HasSynced, list: list}
	s.generation.Store(1)
	bump := func(any) { s.generation.Add(1) }
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: bump, DeleteFunc: bump, UpdateFunc: func(_, n any) { bump(n) },
	}); err != nil {
		return nil, err
	}
	return s, nil
}

// webhooks are the current webhooks; ok is false when the informer did
// not sync within upstream's ten seconds.
func (s *source) webhooks(ctx context.Context) (hooks []*hook, ok bool) {
	if !s.synced() {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if !cache.WaitForCacheSync(ctx.Done(), s.synced) {
			return nil, false
		}
	}
	gen := s.generation.Load()
	if p := s.current.Load(); p != nil && p.generation == gen {
		return p.hooks, true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.current.Load(); p != nil && p.generation == gen {
		return p.hooks, true
	}
	// The generation is read before listing, so a change during the
	// listing makes the next request rebuild.
	hooks, err := s.list()
	if err != nil {
		return nil, false
	}
	s.current.Store(&snapshot{generation: gen, hooks: hooks})
	return hooks, true
}

// newHook builds a hook from the fields mutating and validating webhooks share.
func newHook(config string, index int, name string, cc admissionregistrationv1.WebhookClientConfig,
	rules []admissionregistrationv1.RuleWithOperations, fp *admissionregistrationv1.FailurePolicyType,
	mp *admissionregistrationv1.MatchPolicyType, nsSel, objSel *metav1.LabelSelector,
	se *admissionregistrationv1.SideEffectClass, timeout *int32, versions []string,
	conditions []admissionregistrationv1.MatchCondition) *hook {
	h := &hook{
		id:                fmt.Sprintf("%s/%d", config, index),
		name:              name,
		rules:             rules,
		failurePolicy:     admissionregistrationv1.Fail,
		matchPolicy:       admissionregistrationv1.Equivalent,
		sideEffects:       admissionregistrationv1.SideEffectClassUnknown,
		timeout:           defaultTimeout,
		reviewVersions:    versions,
		namespaceSelector: labels.Everything(),
		objectSelector:    labels.Everything(),
	}
	h.client = webhook.ClientConfig{Name: name, CABundle: cc.CABundle}
	if cc.URL != nil {
		h.client.URL = *cc.URL
	}
	if cc.Service != nil {
		h.client.Service = &webhook.ServiceReference{Namespace: cc.Service.Namespace, Name: cc.Service.Name, Port: 443}
		if cc.Service.Path != nil {
			h.client.Service.Path = *cc.Service.Path
		}
		if cc.Service.Port != nil {
			h.client.Service.Port = *cc.Service.Port
		}
	}
	if fp != nil {
		h.failurePolicy = *fp
	}
	if mp != nil {
		h.matchPolicy = *mp
	}
	if se != nil {
		h.sideEffects = *se
	}
	if timeout != nil {
		h.timeout = time.Duration(*timeout) * time.Second
	}
	var err error
	if nsSel != nil {
		if h.namespaceSelector, err = metav1.LabelSelectorAsSelector(nsSel); err != nil {
			h.err = fmt.Errorf("invalid namespaceSelector: %w", err)
		}
	}
	if objSel != nil {
		if h.objectSelector, err = metav1.LabelSelectorAsSelector(objSel); err != nil {
			h.err = fmt.Errorf("invalid objectSelector: %w", err)
		}
	}
	if len(conditions) > 0 {
		if h.conditions, err = compileMatchConditions(conditions); err != nil {
			h.err = err
		}
	}
	if h.namespaceSelector == nil {
		h.namespaceSelector = labels.Nothing()
	}
	if h.objectSelector == nil {
		h.objectSelector = labels.Nothing()
	}
	return h
}

func sortByName[T metav1.Object](items []T) {
	sort.Slice(items, func(i, j int) bool { return items[i].GetName() < items[j].GetName() })
}
