package controlplane

import (
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	corelisters "k8s.io/client-go/listers/core/v1"

	"github.com/kapi-dev/kapi/internal/admission"
)

// forceLiveLookupTTL is how long a namespace is read live after a delete
// request for it, as upstream's NamespaceLifecycle: the informer may
// still show it Active.
const forceLiveLookupTTL = 30 * time.Second

// namespaceReader reads namespaces for admission as upstream does: from
// the shared informer, and live (from storage) for one the informer does
// not know yet, before it has synced, or shortly after it was deleted.
// Reading storage on every create cost more than the whole rest of the
// default chain.
type namespaceReader struct {
	lister corelisters.NamespaceLister
	synced func() bool
	live   func(ctx context.Context, name string) (*corev1.Namespace, error)
	now    func() time.Time

	mu        sync.Mutex
	forceLive map[string]time.Time // name → until
}

func newNamespaceReader(d *admissionDeps) *namespaceReader {
	r := &namespaceReader{live: d.storage.getNamespace, now: time.Now, forceLive: map[string]time.Time{}}
	if d.informers != nil {
		inf := d.informers.factory.Core().V1().Namespaces()
		r.lister, r.synced = inf.Lister(), inf.Informer().HasSynced
	}
	return r
}

// get reads a namespace; callers must not modify it.
func (r *namespaceReader) get(ctx context.Context, name string) (*corev1.Namespace, error) {
	if r.lister == nil || !r.synced() || r.forced(name) {
		return r.live(ctx, name)
	}
	ns, err := r.lister.Get(name)
	if apierrors.IsNotFound(err) {
		return r.live(ctx, name)
	}
	return ns, err
}

func (r *namespaceReader) forced(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	until, ok := r.forceLive[name]
	if ok && r.now().After(until) {
		delete(r.forceLive, name)
		return false
	}
	return ok
}

// observe records a namespace delete request, so the namespace is read
// live until the informer has caught up.
func (r *namespaceReader) observe(a *admission.Attributes) {
	if a.Operation != admission.Delete || a.Subresource != "" || a.Resource.Group != "" || a.Resource.Resource != "namespaces" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	for n, until := range r.forceLive {
		if now.After(until) {
			delete(r.forceLive, n)
		}
	}
	r.forceLive[a.Name] = now.Add(forceLiveLookupTTL)
}

// lifecycleWithReader is NamespaceLifecycle fed by a namespaceReader: it
// tells the reader about namespace deletions before validating.
type lifecycleWithReader struct {
	plugin admission.ValidationInterface
	reader *namespaceReader
}

func (l *lifecycleWithReader) Validate(ctx context.Context, a *admission.Attributes) error {
	err := l.plugin.Validate(ctx, a)
	if err == nil {
		l.reader.observe(a)
	}
	return err
}
