// Package serviceaccount makes sure every active namespace has the
// service accounts every pod may rely on (the "default" one), recreating
// them when deleted, as kube-controller-manager's serviceaccount
// controller does. Terminating namespaces are left alone.
package serviceaccount

import (
	"context"
	"log/slog"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/kapi-dev/kapi/internal/controllers/worker"
)

// DefaultName is the service account every namespace gets.
const DefaultName = "default"

// Controller keeps the service accounts of every namespace.
type Controller struct {
	client   kubernetes.Interface
	names    []string
	saLister corelisters.ServiceAccountLister
	nsLister corelisters.NamespaceLister
	synced   []cache.InformerSynced
	queue    workqueue.TypedRateLimitingInterface[string]
	logger   *slog.Logger
}

// New returns the controller over the shared informers; names are the
// service accounts to keep (upstream: just "default").
func New(client kubernetes.Interface, sas coreinformers.ServiceAccountInformer, nss coreinformers.NamespaceInformer, names []string, logger *slog.Logger) (*Controller, error) {
	c := &Controller{
		client: client, names: names,
		saLister: sas.Lister(), nsLister: nss.Lister(),
		synced: []cache.InformerSynced{sas.Informer().HasSynced, nss.Informer().HasSynced},
		queue:  worker.NewQueue("serviceaccount"),
		logger: logger,
	}
	// A deleted service account brings its namespace back to the queue.
	if _, err := sas.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		DeleteFunc: func(obj any) {
			if sa := serviceAccountFrom(obj); sa != nil {
				c.queue.Add(sa.Namespace)
			}
		},
	}); err != nil {
		return nil, err
	}
	if _, err := nss.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.enqueueNamespace(obj) },
		UpdateFunc: func(_, obj any) { c.enqueueNamespace(obj) },
	}); err != nil {
		return nil, err
	}
	return c, nil
}

func serviceAccountFrom(obj any) *corev1.ServiceAccount {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	sa, _ := obj.(*corev1.ServiceAccount)
	return sa
}

func (c *Controller) enqueueNamespace(obj any) {
	if ns, ok := obj.(*corev1.Namespace); ok {
		c.queue.Add(ns.Name)
	}
}

// Run waits for the caches, then syncs namespaces with workers until ctx
// ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	worker.RunSynced(ctx, c.queue, workers, c.logger, c.synced, c.sync)
}

// sync creates the missing service accounts of namespace name, unless it
// is gone or terminating.
func (c *Controller) sync(ctx context.Context, name string) error {
	ns, err := c.nsLister.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if ns.Status.Phase != corev1.NamespaceActive {
		return nil
	}
	var errs []error
	for _, sa := range c.names {
		switch _, err := c.saLister.ServiceAccounts(name).Get(sa); {
		case err == nil:
			continue
		case !apierrors.IsNotFound(err):
			errs = append(errs, err)
			continue
		}
		_, err := c.client.CoreV1().ServiceAccounts(name).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{})
		switch {
		case err == nil, apierrors.IsAlreadyExists(err):
		case apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause):
			// The namespace began terminating since the lister saw it.
		default:
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return errs[0]
	}
	return nil
}
