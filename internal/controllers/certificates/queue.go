package certificates

import (
	"context"
	"log/slog"

	certificatesv1 "k8s.io/api/certificates/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	certinformers "k8s.io/client-go/informers/certificates/v1"
	certlisters "k8s.io/client-go/listers/certificates/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/kapi-dev/kapi/internal/controllers/worker"
)

// Queue is the informer plumbing the CSR approver and signer share: the
// names of the CSRs a controller takes, queued on every add and update,
// and the shared lister its sync reads them back from.
type Queue struct {
	lister certlisters.CertificateSigningRequestLister
	synced cache.InformerSynced
	queue  workqueue.TypedRateLimitingInterface[string]
}

// NewQueue queues the CSRs of csrs that take accepts (nil: all).
func NewQueue(csrs certinformers.CertificateSigningRequestInformer, take func(*certificatesv1.CertificateSigningRequest) bool) (*Queue, error) {
	q := &Queue{lister: csrs.Lister(), synced: csrs.Informer().HasSynced, queue: worker.NewQueue("certificate")}
	enqueue := func(obj any) {
		if csr, ok := obj.(*certificatesv1.CertificateSigningRequest); ok && (take == nil || take(csr)) {
			q.queue.Add(csr.Name)
		}
	}
	if _, err := csrs.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue, UpdateFunc: func(_, o any) { enqueue(o) },
	}); err != nil {
		return nil, err
	}
	return q, nil
}

// Run waits for the cache, then calls sync for queued names with workers
// until ctx ends.
func (q *Queue) Run(ctx context.Context, workers int, logger *slog.Logger, sync func(context.Context, string) error) {
	worker.RunSynced(ctx, q.queue, workers, logger, []cache.InformerSynced{q.synced}, sync)
}

// Cached is the named CSR from the cache; nil without an error when it
// is gone. It is shared: never modify it.
func (q *Queue) Cached(name string) (*certificatesv1.CertificateSigningRequest, error) {
	csr, err := q.lister.Get(name)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return csr, err
}
