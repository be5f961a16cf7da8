// Package apiserverinfo keeps the ConfigMaps kube-apiserver itself writes
// into kube-system, as post-start hooks of the server rather than
// controller-manager loops:
//
//   - extension-apiserver-authentication: the client CA and the
//     request-header settings, which aggregated API servers and anything
//     using delegated authentication read
//     (upstream's start-cluster-authentication-info-controller);
//   - kube-apiserver-legacy-service-account-token-tracking: the day the
//     server began recording the last use of legacy tokens, which the
//     legacy token cleaner waits on (start-legacy-token-tracking-controller).
//
// Each is watched alone (a name field selector) and written back when it
// is deleted or changed.
package apiserverinfo

import (
	"context"
	"log/slog"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/kapi-dev/kapi/internal/controllers/worker"
)

// InformerFunc makes an informer of obj's kind in namespace with each
// request's options passed to tweak: a server feeds its own informers
// in-process with one. Nil builds client-go's over the client.
type InformerFunc func(obj runtime.Object, namespace string, tweak func(*metav1.ListOptions)) cache.SharedIndexInformer

// keeper keeps one kube-system ConfigMap's data as desired says.
type keeper struct {
	client kubernetes.Interface
	name   string
	// desired returns the data the ConfigMap should hold given the
	// current one (nil when absent).
	desired func(existing *corev1.ConfigMap) (map[string]string, error)
	// resync, when positive, re-checks the ConfigMap that often.
	resync   time.Duration
	informer cache.SharedIndexInformer
	queue    workqueue.TypedRateLimitingInterface[string]
	logger   *slog.Logger
}

func newKeeper(client kubernetes.Interface, newInformer InformerFunc, name string, resync time.Duration, logger *slog.Logger, desired func(*corev1.ConfigMap) (map[string]string, error)) (*keeper, error) {
	tweak := func(o *metav1.ListOptions) {
		o.FieldSelector = fields.OneTermEqualSelector("metadata.name", name).String()
	}
	var informer cache.SharedIndexInformer
	if newInformer != nil {
		informer = newInformer(&corev1.ConfigMap{}, metav1.NamespaceSystem, tweak)
	} else {
		f := informers.NewSharedInformerFactoryWithOptions(client, 0,
			informers.WithNamespace(metav1.NamespaceSystem), informers.WithTweakListOptions(tweak))
		informer = f.Core().V1().ConfigMaps().Informer()
	}
	k := &keeper{
		client: client, name: name, desired: desired, resync: resync,
		informer: informer,
		queue:    worker.NewQueue(name),
		logger:   logger,
	}
	enqueue := func(any) { k.queue.Add(name) }
	if _, err := k.informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue, UpdateFunc: func(_, o any) { enqueue(o) }, DeleteFunc: enqueue,
	}); err != nil {
		return nil, err
	}
	return k, nil
}

// Run writes the ConfigMap, then keeps it until ctx ends.
func (k *keeper) Run(ctx context.Context) {
	defer k.queue.ShutDown()
	go k.informer.Run(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), k.informer.HasSynced) {
		return
	}
	k.queue.Add(k.name)
	if k.resync > 0 {
		go wait.UntilWithContext(ctx, func(context.Context) { k.queue.Add(k.name) }, k.resync)
	}
	worker.Run(ctx, k.queue, 1, k.logger, func(ctx context.Context, _ string) error { return k.sync(ctx) })
}

func (k *keeper) sync(ctx context.Context) error {
	obj, exists, err := k.informer.GetStore().GetByKey(metav1.NamespaceSystem + "/" + k.name)
	if err != nil {
		return err
	}
	var existing *corev1.ConfigMap
	if exists {
		existing = obj.(*corev1.ConfigMap)
	}
	data, err := k.desired(existing)
	if err != nil {
		return err
	}
	cms := k.client.CoreV1().ConfigMaps(metav1.NamespaceSystem)
	if existing == nil {
		_, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceSystem, Name: k.name}, Data: data}, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		// NotFound: kube-system is not created yet; the retry finds it.
		return err
	}
	if apiequality.Semantic.DeepEqual(existing.Data, data) {
		return nil
	}
	cm := existing.DeepCopy()
	cm.Data = data
	_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		// The watch brings the new state back to the queue.
		return nil
	}
	return err
}
