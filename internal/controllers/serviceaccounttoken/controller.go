// Package serviceaccounttoken fills legacy service-account token Secrets
// (type kubernetes.io/service-account-token) with a signed token, the CA
// bundle and the namespace, and deletes them when their service account
// is gone, as kube-controller-manager's serviceaccount-token controller
// does. Like upstream since 1.24 it creates no token Secrets itself: a
// user creates the Secret with the kubernetes.io/service-account.name
// annotation and the controller fills it.
package serviceaccounttoken

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/kapi-dev/kapi/internal/controllers/worker"
)

// TokenGenerator signs the token of one Secret.
type TokenGenerator func(namespace, saName, saUID, secretName string) (string, error)

// secretKey is a token Secret and the service account it was for (kept
// so that a deleted Secret can be removed from its account).
type secretKey struct {
	namespace, name string
	uid             types.UID
	saName          string
	saUID           types.UID
}

// accountKey is a service account; uid tells a deleted account from a
// recreated one.
type accountKey struct {
	namespace, name string
	uid             types.UID
}

// Controller keeps legacy token Secrets.
type Controller struct {
	client   kubernetes.Interface
	token    TokenGenerator
	rootCA   []byte
	saLister corelisters.ServiceAccountLister
	secrets  cache.Indexer
	synced   []cache.InformerSynced
	secretQ  workqueue.TypedRateLimitingInterface[secretKey]
	accountQ workqueue.TypedRateLimitingInterface[accountKey]
	logger   *slog.Logger
}

// New returns the controller; secrets must be an informer of token
// Secrets only (a type field selector), as upstream's.
func New(client kubernetes.Interface, sas coreinformers.ServiceAccountInformer, secrets cache.SharedIndexInformer, token TokenGenerator, rootCA []byte, logger *slog.Logger) (*Controller, error) {
	c := &Controller{
		client: client, token: token, rootCA: rootCA,
		saLister: sas.Lister(), secrets: secrets.GetIndexer(),
		synced:   []cache.InformerSynced{sas.Informer().HasSynced, secrets.HasSynced},
		secretQ:  worker.NewTypedQueue[secretKey]("serviceaccount_tokens_secret"),
		accountQ: worker.NewTypedQueue[accountKey]("serviceaccount_tokens_service"),
		logger:   logger,
	}
	if _, err := sas.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueueAccount,
		UpdateFunc: func(_, obj any) { c.enqueueAccount(obj) },
		DeleteFunc: c.enqueueAccount,
	}); err != nil {
		return nil, err
	}
	if _, err := secrets.AddEventHandler(cache.FilteringResourceEventHandler{
		FilterFunc: func(obj any) bool {
			s := secretFrom(obj)
			return s != nil && s.Type == corev1.SecretTypeServiceAccountToken
		},
		Handler: cache.ResourceEventHandlerFuncs{
			AddFunc:    c.enqueueSecret,
			UpdateFunc: func(_, obj any) { c.enqueueSecret(obj) },
			DeleteFunc: c.enqueueSecret,
		},
	}); err != nil {
		return nil, err
	}
	return c, nil
}

func secretFrom(obj any) *corev1.Secret {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	s, _ := obj.(*corev1.Secret)
	return s
}

func (c *Controller) enqueueSecret(obj any) {
	if s := secretFrom(obj); s != nil {
		c.secretQ.Add(secretKey{
			namespace: s.Namespace, name: s.Name, uid: s.UID,
			saName: s.Annotations[corev1.ServiceAccountNameKey], saUID: types.UID(s.Annotations[corev1.ServiceAccountUIDKey]),
		})
	}
}

func (c *Controller) enqueueAccount(obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	if sa, ok := obj.(*corev1.ServiceAccount); ok {
		c.accountQ.Add(accountKey{namespace: sa.Namespace, name: sa.Name, uid: sa.UID})
	}
}

// Run waits for the caches, then works both queues until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	defer c.secretQ.ShutDown()
	defer c.accountQ.ShutDown()
	if !cache.WaitForCacheSync(ctx.Done(), c.synced...) {
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		worker.Run(ctx, c.accountQ, workers, c.logger, c.syncAccount)
	}()
	worker.Run(ctx, c.secretQ, workers, c.logger, c.syncSecret)
	<-done
}

// account returns the service account namespace/name if it exists with
// uid (any uid when empty), looking past the cache on a miss.
func (c *Controller) account(ctx context.Context, namespace, name string, uid types.UID) (*corev1.ServiceAccount, error) {
	sa, err := c.saLister.ServiceAccounts(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		sa, err = c.client.CoreV1().ServiceAccounts(namespace).Get(ctx, name, metav1.GetOptions{})
	}
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if uid != "" && sa.UID != uid {
		return nil, nil
	}
	return sa, nil
}

// syncAccount deletes the token Secrets of a deleted service account.
func (c *Controller) syncAccount(ctx context.Context, k accountKey) error {
	sa, err := c.account(ctx, k.namespace, k.name, k.uid)
	if err != nil || sa != nil {
		return err
	}
	objs, err := c.secrets.ByIndex(cache.NamespaceIndex, k.namespace)
	if err != nil {
		return err
	}
	for _, obj := range objs {
		s := obj.(*corev1.Secret)
		if s.Type != corev1.SecretTypeServiceAccountToken || s.Annotations[corev1.ServiceAccountNameKey] != k.name {
			continue
		}
		if uid := s.Annotations[corev1.ServiceAccountUIDKey]; uid != "" && uid != string(k.uid) {
			continue
		}
		if err := c.deleteSecret(ctx, s.Namespace, s.Name, s.UID); err != nil {
			return err
		}
	}
	return nil
}

func (c *Controller) deleteSecret(ctx context.Context, namespace, name string, uid types.UID) error {
	err := c.client.CoreV1().Secrets(namespace).Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	return err
}

// syncSecret fills a token Secret, deletes it when its account is gone,
// or, for a deleted Secret, drops it from its account's secrets.
func (c *Controller) syncSecret(ctx context.Context, k secretKey) error {
	obj, exists, err := c.secrets.GetByKey(k.namespace + "/" + k.name)
	if err != nil {
		return err
	}
	var cached *corev1.Secret
	if exists {
		cached = obj.(*corev1.Secret)
	}
	if cached == nil || cached.UID != k.uid {
		return c.removeReference(ctx, k)
	}
	sa, err := c.account(ctx, k.namespace, cached.Annotations[corev1.ServiceAccountNameKey], types.UID(cached.Annotations[corev1.ServiceAccountUIDKey]))
	if err != nil {
		return err
	}
	if sa == nil {
		return c.deleteSecret(ctx, cached.Namespace, cached.Name, cached.UID)
	}
	return c.fill(ctx, cached, sa)
}

// removeReference drops a deleted Secret from its account's secrets.
func (c *Controller) removeReference(ctx context.Context, k secretKey) error {
	if k.saName == "" {
		return nil
	}
	sa, err := c.account(ctx, k.namespace, k.saName, k.saUID)
	if err != nil || sa == nil {
		return err
	}
	if !slices.ContainsFunc(sa.Secrets, func(r corev1.ObjectReference) bool { return r.Name == k.name }) {
		return nil
	}
	sa = sa.DeepCopy()
	sa.Secrets = slices.DeleteFunc(sa.Secrets, func(r corev1.ObjectReference) bool { return r.Name == k.name })
	_, err = c.client.CoreV1().ServiceAccounts(k.namespace).Update(ctx, sa, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		// Gone, or changed: the next event brings it back.
		return nil
	}
	return err
}

// fill writes the token, ca.crt and namespace a Secret lacks, reading the
// live Secret so a stale cache never overwrites a token.
func (c *Controller) fill(ctx context.Context, cached *corev1.Secret, sa *corev1.ServiceAccount) error {
	if !c.needs(cached) {
		return nil
	}
	live, err := c.client.CoreV1().Secrets(cached.Namespace).Get(ctx, cached.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if live.UID != cached.UID || !c.needs(live) {
		return nil
	}
	live = live.DeepCopy()
	if live.Data == nil {
		live.Data = map[string][]byte{}
	}
	if live.Annotations == nil {
		live.Annotations = map[string]string{}
	}
	if len(c.rootCA) > 0 && !bytes.Equal(live.Data[corev1.ServiceAccountRootCAKey], c.rootCA) {
		live.Data[corev1.ServiceAccountRootCAKey] = c.rootCA
	}
	if len(live.Data[corev1.ServiceAccountNamespaceKey]) == 0 {
		live.Data[corev1.ServiceAccountNamespaceKey] = []byte(live.Namespace)
	}
	if len(live.Data[corev1.ServiceAccountTokenKey]) == 0 {
		token, err := c.token(sa.Namespace, sa.Name, string(sa.UID), live.Name)
		if err != nil {
			return fmt.Errorf("generating the token of secret %s/%s: %w", live.Namespace, live.Name, err)
		}
		live.Data[corev1.ServiceAccountTokenKey] = []byte(token)
	}
	live.Annotations[corev1.ServiceAccountNameKey] = sa.Name
	live.Annotations[corev1.ServiceAccountUIDKey] = string(sa.UID)
	_, err = c.client.CoreV1().Secrets(live.Namespace).Update(ctx, live, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

func (c *Controller) needs(s *corev1.Secret) bool {
	return (len(c.rootCA) > 0 && !bytes.Equal(s.Data[corev1.ServiceAccountRootCAKey], c.rootCA)) ||
		len(s.Data[corev1.ServiceAccountNamespaceKey]) == 0 ||
		len(s.Data[corev1.ServiceAccountTokenKey]) == 0
}
