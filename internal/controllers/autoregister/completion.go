package autoregister

import (
	"fmt"
	"slices"
	"sync"

	"k8s.io/client-go/tools/cache"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	v1helper "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/helper"
)

// Completion is kube-apiserver's "autoregister-completion" health check:
// it fails until every APIService registered at start (one per built-in
// group version) has been seen Available at least once.
type Completion struct {
	mu      sync.RWMutex
	pending map[string]bool
}

// NewCompletion waits for the APIServices named.
func NewCompletion(names []string) *Completion {
	c := &Completion{pending: map[string]bool{}}
	for _, n := range names {
		c.pending[n] = true
	}
	return c
}

// Handler observes APIServices (add and update events of their informer).
func (c *Completion) Handler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    c.observe,
		UpdateFunc: func(_, obj any) { c.observe(obj) },
	}
}

func (c *Completion) observe(obj any) {
	s, ok := obj.(*apiregistrationv1.APIService)
	if !ok || !v1helper.IsAPIServiceConditionTrue(s, apiregistrationv1.Available) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.pending, s.Name)
}

// Check is nil once nothing is pending, else upstream's error naming the
// APIServices still missing, sorted.
func (c *Completion) Check() error {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if len(c.pending) == 0 {
		return nil
	}
	names := make([]string, 0, len(c.pending))
	for n := range c.pending {
		names = append(names, n)
	}
	slices.Sort(names)
	return fmt.Errorf("missing APIService: %v", names)
}
