// Package tokencleaner deletes expired bootstrap token Secrets, as
// kube-controller-manager's token-cleaner controller does: a Secret of
// type bootstrap.kubernetes.io/token in kube-system is deleted once its
// "expiration" (RFC 3339) has passed, or at once when it does not parse;
// one that expires later is looked at again when it does.
package tokencleaner

import (
	"context"
	"log/slog"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"

	"github.com/kapi-dev/kapi/internal/auth/authenticator/bootstrap"
	"github.com/kapi-dev/kapi/internal/controllers/worker"
)

// Controller deletes expired token Secrets.
type Controller struct {
	client kubernetes.Interface
	lister corelisters.SecretLister
	synced cache.InformerSynced
	queue  workqueue.TypedRateLimitingInterface[string]
	clock  clock.PassiveClock
	logger *slog.Logger
	// requeue looks at a key again after a delay (the queue's AddAfter;
	// tests record it instead).
	requeue func(key string, after time.Duration)
}

// New returns the cleaner over an informer of Secrets (kube-system ones
// of the bootstrap token type are looked at; others are ignored).
func New(client kubernetes.Interface, secrets coreinformers.SecretInformer, clk clock.PassiveClock, logger *slog.Logger) (*Controller, error) {
	c := &Controller{
		client: client,
		lister: secrets.Lister(),
		synced: secrets.Informer().HasSynced,
		queue:  worker.NewQueue("token_cleaner"),
		clock:  clk,
		logger: logger,
	}
	c.requeue = c.queue.AddAfter
	_, err := secrets.Informer().AddEventHandler(cache.FilteringResourceEventHandler{
		FilterFunc: isTokenSecret,
		Handler: cache.ResourceEventHandlerFuncs{
			AddFunc:    c.enqueue,
			UpdateFunc: func(_, obj any) { c.enqueue(obj) },
		},
	})
	return c, err
}

// isTokenSecret: a bootstrap token Secret where tokens live.
func isTokenSecret(obj any) bool {
	s, ok := obj.(*corev1.Secret)
	return ok && s.Namespace == bootstrap.Namespace && s.Type == corev1.SecretTypeBootstrapToken
}

func (c *Controller) enqueue(obj any) {
	if key, err := cache.MetaNamespaceKeyFunc(obj); err == nil {
		c.queue.Add(key)
	}
}

// Run syncs Secrets with one worker (as upstream) until ctx ends.
func (c *Controller) Run(ctx context.Context) {
	worker.RunSynced(ctx, c.queue, 1, c.logger, []cache.InformerSynced{c.synced}, c.Sync)
}

// Sync deletes the Secret named by key if it has expired, or asks to see
// it again when it will have.
func (c *Controller) Sync(ctx context.Context, key string) error {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	s, err := c.lister.Secrets(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if !isTokenSecret(s) {
		return nil
	}
	remaining, gone := bootstrap.Expiration(s, c.clock.Now())
	switch {
	case gone:
		c.logger.Info("deleting expired bootstrap token secret", "secret", key)
		// The UID precondition keeps a Secret recreated under the same
		// name from being deleted for its predecessor's expiry.
		opts := metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &s.UID}}
		err := c.client.CoreV1().Secrets(namespace).Delete(ctx, name, opts)
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return err
		}
	case remaining > 0:
		c.requeue(key, remaining)
	}
	return nil
}
