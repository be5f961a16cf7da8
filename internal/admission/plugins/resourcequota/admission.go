// Package resourcequota is the ResourceQuota admission plugin: a write in
// a namespace is measured by the evaluators of internal/quota against
// every quota of the namespace that limits it; one that would exceed a
// quota is refused with upstream's 403, one that fits is charged to the
// quotas' status.used through the API before it is admitted, with
// optimistic concurrency and retries, as kube-apiserver's plugin does.
package resourcequota

import (
	"context"
	"hash/fnv"
	"sync"

	corev1 "k8s.io/api/core/v1"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/quota"
)

// PluginName is the name used by --enable-admission-plugins.
const PluginName = "ResourceQuota"

// retries is how many times a conflicting status write is retried.
const retries = 3

// Plugin enforces resource quotas.
type Plugin struct {
	registry *quota.Registry
	access   QuotaAccessor
	config   *Configuration
	// locks serialise the checks of one namespace in this server, so
	// concurrent requests are charged one after the other, not against
	// the same snapshot; namespaces share a fixed set of locks by hash.
	locks [64]sync.Mutex
}

var _ admission.ValidationInterface = (*Plugin)(nil)

// New returns the plugin; config may be nil.
func New(registry *quota.Registry, access QuotaAccessor, config *Configuration) *Plugin {
	if config == nil {
		config = &Configuration{}
	}
	return &Plugin{registry: registry, access: access, config: config}
}

var namespaceKind = schema.GroupKind{Kind: "Namespace"}

// Validate checks a create or update against the namespace's quotas and
// charges it.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	if a.Namespace == "" || (a.Operation == admission.Create && a.Kind.GroupKind() == namespaceKind) {
		return nil
	}
	if a.Operation != admission.Create && a.Operation != admission.Update {
		return nil
	}
	gr := a.Resource.GroupResource()
	if quota.Ignored(gr) {
		return nil
	}
	e := p.registry.Get(gr)
	if !e.Handles(a.Operation, a.Subresource, a.Object, a.OldObject) {
		return nil
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(a.Namespace))
	mu := &p.locks[h.Sum32()%uint32(len(p.locks))]
	mu.Lock()
	defer mu.Unlock()

	quotas, err := p.access.GetQuotas(ctx, a.Namespace)
	if err != nil {
		return err
	}
	if len(quotas) == 0 && len(p.config.LimitedResources) == 0 {
		return nil
	}
	return p.charge(ctx, e, quotas, a, retries)
}

// charge checks a against quotas and writes the new usage of those that
// changed; on conflicts it re-reads the quotas that failed and tries them
// again.
func (p *Plugin) charge(ctx context.Context, e quota.Evaluator, quotas []corev1.ResourceQuota, a *admission.Attributes, retriesLeft int) error {
	updated, err := checkRequest(e, quotas, a, p.config.LimitedResources)
	if err != nil || a.DryRun {
		return err
	}
	var failed []string
	var lastErr error
	for i := range updated {
		if quota.Equals(quotas[i].Status.Used, updated[i].Status.Used) {
			continue
		}
		if err := p.access.UpdateQuotaStatus(ctx, &updated[i]); err != nil {
			failed = append(failed, updated[i].Name)
			lastErr = err
		}
	}
	if len(failed) == 0 {
		return nil
	}
	if retriesLeft <= 0 {
		return lastErr
	}
	// Only the quotas whose write failed are checked again: the others
	// have been charged.
	var again []corev1.ResourceQuota
	for _, name := range failed {
		q, err := p.access.GetQuota(ctx, a.Namespace, name)
		if err != nil {
			return lastErr
		}
		if q != nil {
			again = append(again, *q)
		}
	}
	if len(again) == 0 {
		return nil
	}
	return p.charge(ctx, e, again, a, retriesLeft-1)
}
