// Package limitranger is the LimitRanger admission plugin: the LimitRange
// objects of a namespace default the requests and limits of new pods'
// containers (recording what they set in the kubernetes.io/limit-ranger
// annotation) and bound containers, pods and persistent volume claims by
// min, max and maxLimitRequestRatio.
package limitranger

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/utils/clock"
	"k8s.io/utils/lru"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/admission/plugins/internal/podutil"
)

const (
	// PluginName is the name used by --enable-admission-plugins.
	PluginName = "LimitRanger"
	// Annotation on a pod lists the defaults the plugin set.
	Annotation = "kubernetes.io/limit-ranger"
	// liveTTL is how long a live lookup of an empty-looking namespace is
	// trusted, so a lagging informer does not let a pod through unchecked
	// while repeated misses do not each cost a list.
	liveTTL = 30 * time.Second
)

// LiveLister lists a namespace's limit ranges from the server.
type LiveLister func(ctx context.Context, namespace string) ([]*corev1.LimitRange, error)

// Plugin is the LimitRanger admission plugin.
type Plugin struct {
	lister corev1listers.LimitRangeLister
	live   LiveLister
	clock  clock.PassiveClock

	mu     sync.Mutex // serialises live lookups (upstream: singleflight)
	lookup *lru.Cache // namespace → liveEntry
}

type liveEntry struct {
	expiry time.Time
	items  []*corev1.LimitRange
}

var _ admission.Interface = (*Plugin)(nil)

// New returns the plugin over the shared lister, with live as the
// fallback when the lister holds nothing for a namespace.
func New(lister corev1listers.LimitRangeLister, live LiveLister, clk clock.PassiveClock) *Plugin {
	if clk == nil {
		clk = clock.RealClock{}
	}
	return &Plugin{lister: lister, live: live, clock: clk, lookup: lru.New(10000)}
}

// Admit sets default requests and limits on new pods.
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) error {
	return p.run(ctx, a, func(lr *corev1.LimitRange, obj any) error {
		if pod, ok := obj.(*corev1.Pod); ok {
			defaultPod(lr, pod)
		}
		return nil
	})
}

// Validate checks new pods and created or updated claims against the
// ranges.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	return p.run(ctx, a, func(lr *corev1.LimitRange, obj any) error {
		switch o := obj.(type) {
		case *corev1.Pod:
			return validatePod(lr, o)
		case *corev1.PersistentVolumeClaim:
			return validateClaim(lr, o)
		}
		return nil
	})
}

func (p *Plugin) run(ctx context.Context, a *admission.Attributes, fn func(*corev1.LimitRange, any) error) error {
	if a.Subresource != "" || (a.Operation != admission.Create && a.Operation != admission.Update) {
		return nil
	}
	switch a.Object.(type) {
	case *corev1.Pod:
		// containers cannot change after creation: updates are not checked
		if a.Operation == admission.Update {
			return nil
		}
	case *corev1.PersistentVolumeClaim:
	default:
		return nil
	}
	if a.OldObject != nil {
		old, err := meta.Accessor(a.OldObject)
		if err != nil {
			return podutil.Forbidden(a, err)
		}
		if old.GetDeletionTimestamp() != nil {
			return nil
		}
	}
	ranges, err := p.ranges(ctx, a)
	if err != nil {
		return err
	}
	for _, lr := range ranges {
		if err := fn(lr, a.Object); err != nil {
			return podutil.Forbidden(a, err)
		}
	}
	return nil
}

// ranges are the namespace's limit ranges from the lister or, when it has
// none, from a live list remembered for liveTTL.
func (p *Plugin) ranges(ctx context.Context, a *admission.Attributes) ([]*corev1.LimitRange, error) {
	items, err := p.lister.LimitRanges(a.Namespace).List(labels.Everything())
	if err != nil {
		return nil, podutil.Forbidden(a, fmt.Errorf("unable to %s %v at this time because there was an error enforcing limit ranges", a.Operation, a.Resource))
	}
	if len(items) > 0 || p.live == nil {
		return items, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if e, ok := p.lookup.Get(a.Namespace); ok && !e.(liveEntry).expiry.Before(p.clock.Now()) {
		return e.(liveEntry).items, nil
	}
	live, err := p.live(ctx, a.Namespace)
	if err != nil {
		return nil, podutil.Forbidden(a, err)
	}
	p.lookup.Add(a.Namespace, liveEntry{expiry: p.clock.Now().Add(liveTTL), items: live})
	return live, nil
}
