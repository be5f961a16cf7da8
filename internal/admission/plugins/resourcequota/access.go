package resourcequota

import (
	"context"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/utils/lru"
)

// QuotaAccessor reads the quotas of a namespace and writes their status.
type QuotaAccessor interface {
	// GetQuotas returns copies of the namespace's quotas, each at the
	// newest version known.
	GetQuotas(ctx context.Context, namespace string) ([]corev1.ResourceQuota, error)
	// GetQuota reads one quota from the API (after a conflict); nil when
	// it is gone.
	GetQuota(ctx context.Context, namespace, name string) (*corev1.ResourceQuota, error)
	// UpdateQuotaStatus writes q's status, failing on a stale
	// resourceVersion.
	UpdateQuotaStatus(ctx context.Context, q *corev1.ResourceQuota) error
}

// clientAccessor reads quotas from an informer's lister and writes them
// through the API. It remembers the quotas it wrote, so back-to-back
// requests see their own writes before the informer does.
type clientAccessor struct {
	client    kubernetes.Interface
	lister    corev1listers.ResourceQuotaLister
	hasSynced func() bool
	written   *lru.Cache
}

// NewAccessor reads through lister (hasSynced tells when it is
// complete) and writes through client.
func NewAccessor(client kubernetes.Interface, lister corev1listers.ResourceQuotaLister, hasSynced func() bool) QuotaAccessor {
	return &clientAccessor{client: client, lister: lister, hasSynced: hasSynced, written: lru.New(100)}
}

func (c *clientAccessor) UpdateQuotaStatus(ctx context.Context, q *corev1.ResourceQuota) error {
	updated, err := c.client.CoreV1().ResourceQuotas(q.Namespace).UpdateStatus(ctx, q, metav1.UpdateOptions{})
	if err != nil {
		return err
	}
	c.written.Add(q.Namespace+"/"+q.Name, updated)
	return nil
}

func (c *clientAccessor) GetQuota(ctx context.Context, namespace, name string) (*corev1.ResourceQuota, error) {
	q, err := c.client.CoreV1().ResourceQuotas(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return q, err
}

func (c *clientAccessor) GetQuotas(ctx context.Context, namespace string) ([]corev1.ResourceQuota, error) {
	items, err := c.lister.ResourceQuotas(namespace).List(labels.Everything())
	if err != nil {
		return nil, fmt.Errorf("error resolving quota: %v", err)
	}
	// Until the informer has listed everything, an empty answer may be
	// wrong: ask the API.
	if len(items) == 0 && !c.hasSynced() {
		live, err := c.client.CoreV1().ResourceQuotas(namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		for i := range live.Items {
			items = append(items, &live.Items[i])
		}
	}
	out := make([]corev1.ResourceQuota, 0, len(items))
	for _, q := range items {
		out = append(out, *c.newest(q).DeepCopy())
	}
	return out, nil
}

// newest returns the version of q this accessor wrote last when it is
// newer than q, and forgets it once the informer has caught up.
func (c *clientAccessor) newest(q *corev1.ResourceQuota) *corev1.ResourceQuota {
	key := q.Namespace + "/" + q.Name
	v, ok := c.written.Get(key)
	if !ok {
		return q
	}
	w := v.(*corev1.ResourceQuota)
	if w.UID != q.UID || rv(q) >= rv(w) {
		c.written.Remove(key)
		return q
	}
	return w
}

func rv(q *corev1.ResourceQuota) uint64 {
	n, _ := strconv.ParseUint(q.ResourceVersion, 10, 64)
	return n
}
