// Package bootstrapsigner signs the kubeconfig in the
// kube-public/cluster-info ConfigMap with every bootstrap token that may
// sign, as kube-controller-manager's bootstrap-signer controller does: a
// detached JWS per token under the key jws-kubeconfig-<token id>, so a
// joining node (kubeadm's token discovery) can check the cluster's CA
// with nothing but its token. Signatures of tokens that are gone,
// expired or not for signing are removed.
package bootstrapsigner

import (
	"context"
	"log/slog"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"

	"github.com/kapi-dev/kapi/internal/auth/authenticator/bootstrap"
	"github.com/kapi-dev/kapi/internal/controllers/worker"
)

// The ConfigMap, as the cluster-bootstrap library names it.
const (
	ConfigMapNamespace = metav1.NamespacePublic
	ConfigMapName      = "cluster-info"
	// KubeConfigKey holds the kubeconfig that is signed.
	KubeConfigKey = "kubeconfig"
	// SignaturePrefix followed by a token id names a signature key.
	SignaturePrefix = "jws-kubeconfig-"
)

// Controller keeps the signatures of cluster-info current.
type Controller struct {
	client     kubernetes.Interface
	configMaps corelisters.ConfigMapLister
	secrets    corelisters.SecretLister
	synced     []cache.InformerSynced
	// queue holds the one key; it collapses the bursts of ConfigMap and
	// Secret events into one signing pass.
	queue  workqueue.TypedRateLimitingInterface[string]
	clock  clock.PassiveClock
	logger *slog.Logger
}

// New returns the signer over informers of ConfigMaps and Secrets.
func New(client kubernetes.Interface, configMaps coreinformers.ConfigMapInformer, secrets coreinformers.SecretInformer, clk clock.PassiveClock, logger *slog.Logger) (*Controller, error) {
	c := &Controller{
		client:     client,
		configMaps: configMaps.Lister(),
		secrets:    secrets.Lister(),
		synced:     []cache.InformerSynced{configMaps.Informer().HasSynced, secrets.Informer().HasSynced},
		queue:      worker.NewQueue("bootstrap_signer_queue"),
		clock:      clk,
		logger:     logger,
	}
	poke := func(any) { c.queue.Add(ConfigMapNamespace + "/" + ConfigMapName) }
	_, err := configMaps.Informer().AddEventHandler(cache.FilteringResourceEventHandler{
		FilterFunc: func(obj any) bool {
			cm, ok := obj.(*corev1.ConfigMap)
			return ok && cm.Namespace == ConfigMapNamespace && cm.Name == ConfigMapName
		},
		Handler: cache.ResourceEventHandlerFuncs{AddFunc: poke, UpdateFunc: func(_, o any) { poke(o) }},
	})
	if err != nil {
		return nil, err
	}
	_, err = secrets.Informer().AddEventHandler(cache.FilteringResourceEventHandler{
		FilterFunc: func(obj any) bool {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			s, ok := obj.(*corev1.Secret)
			return ok && s.Namespace == bootstrap.Namespace && s.Type == corev1.SecretTypeBootstrapToken
		},
		Handler: cache.ResourceEventHandlerFuncs{AddFunc: poke, UpdateFunc: func(_, o any) { poke(o) }, DeleteFunc: poke},
	})
	return c, err
}

// Run signs with one worker until ctx ends.
func (c *Controller) Run(ctx context.Context) {
	worker.RunSynced(ctx, c.queue, 1, c.logger, c.synced, func(ctx context.Context, _ string) error { return c.Sync(ctx) })
}

// Sync recomputes the signatures of the cached cluster-info and writes
// it when one was added, changed or removed. A ConfigMap without a
// kubeconfig is left alone.
func (c *Controller) Sync(ctx context.Context) error {
	cm, err := c.configMaps.ConfigMaps(ConfigMapNamespace).Get(ConfigMapName)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	content, ok := cm.Data[KubeConfigKey]
	if !ok {
		return nil
	}
	updated := cm.DeepCopy()
	old := map[string]string{}
	for key, value := range updated.Data {
		if id, ok := strings.CutPrefix(key, SignaturePrefix); ok {
			old[id] = value
			delete(updated.Data, key)
		}
	}
	changed := false
	for id, secret := range c.signingTokens() {
		sig, err := DetachedSignature(content, id, secret)
		if err != nil {
			c.logger.Error("signing cluster-info", "token", id, "err", err)
			continue
		}
		if prev, ok := old[id]; !ok || prev != sig {
			changed = true
		}
		delete(old, id)
		updated.Data[SignaturePrefix+id] = sig
	}
	if !changed && len(old) == 0 {
		return nil
	}
	_, err = c.client.CoreV1().ConfigMaps(ConfigMapNamespace).Update(ctx, updated, metav1.UpdateOptions{})
	if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
		// The informer brings the newer ConfigMap (or its deletion) and
		// with it another pass.
		return nil
	}
	return err
}

// signingTokens maps token id to secret for every token Secret that may
// sign now.
func (c *Controller) signingTokens() map[string]string {
	secrets, err := c.secrets.Secrets(bootstrap.Namespace).List(labels.Everything())
	if err != nil {
		return nil
	}
	now := c.clock.Now()
	tokens := map[string]string{}
	for _, s := range secrets {
		if id, secret, ok := forSigning(s, now); ok {
			if _, dup := tokens[id]; !dup {
				tokens[id] = secret
			}
		}
	}
	return tokens
}
