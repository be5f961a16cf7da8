package controlplane

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// TestResourceQuotaThroughClientGo: a quota of configmaps: 2 gets its
// status from the in-process controller (counting the namespace's
// kube-root-ca.crt, as upstream does), refuses the ConfigMap past the
// limit with upstream's 403, shows used=2, and after a delete the
// controller brings used back to 1 so the next one is admitted.
func TestResourceQuotaThroughClientGo(t *testing.T) {
	s := startServer(t, "memory")
	cs, err := kubernetes.NewForConfig(s.restCfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	quotas := cs.CoreV1().ResourceQuotas("bench")
	cms := cs.CoreV1().ConfigMaps("bench")
	hard := corev1.ResourceList{corev1.ResourceConfigMaps: resource.MustParse("2")}
	// The quota comes after kube-root-ca.crt: were the publisher's create
	// charged while the controller's first count is in flight, the count's
	// retry after the conflict could land after "a" below and take its
	// charge back before the informer sees "a" (upstream's controller has
	// the same window).
	poll(t, "kube-root-ca.crt in the namespace", func(ctx context.Context) (bool, error) {
		_, err := cms.Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil, err
	})
	if _, err := quotas.Create(ctx, &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: "q"},
		Spec:       corev1.ResourceQuotaSpec{Hard: hard},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	used := func(want string) func(ctx context.Context) (bool, error) {
		return func(ctx context.Context) (bool, error) {
			q, err := quotas.Get(ctx, "q", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			u, ok := q.Status.Used[corev1.ResourceConfigMaps]
			h := q.Status.Hard[corev1.ResourceConfigMaps]
			return ok && u.String() == want && h.String() == "2", nil
		}
	}
	poll(t, "the controller sets status hard=2 used=1", used("1"))

	cm := func(name string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}
	}
	if _, err := cms.Create(ctx, cm("a"), metav1.CreateOptions{}); err != nil {
		t.Fatalf("first configmap: %v", err)
	}
	_, err = cms.Create(ctx, cm("b"), metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) {
		t.Fatalf("second configmap: got %v, want 403 Forbidden", err)
	}
	if want := `configmaps "b" is forbidden: exceeded quota: q, requested: configmaps=1, used: configmaps=2, limited: configmaps=2`; err.Error() != want {
		t.Errorf("message:\n got %s\nwant %s", err.Error(), want)
	}
	q, err := quotas.Get(ctx, "q", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if u := q.Status.Used[corev1.ResourceConfigMaps]; u.String() != "2" {
		t.Errorf("status.used after admission = %s, want 2", u.String())
	}

	if err := cms.Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "the controller gives back the deleted configmap", used("1"))
	// Admission charges against its informer's copy of the quota, which
	// hears of the controller's status write a moment after the API does
	// (as upstream's): until then a create is still refused.
	poll(t, "a configmap created after the delete", func(ctx context.Context) (bool, error) {
		_, err := cms.Create(ctx, cm("c"), metav1.CreateOptions{})
		if apierrors.IsForbidden(err) {
			return false, nil
		}
		return err == nil, err
	})
}

// BenchmarkCreateConfigMapWithQuota is BenchmarkCreateConfigMap in a
// namespace whose quota limits configmaps: each create is also charged to
// the quota's status through the API.
func BenchmarkCreateConfigMapWithQuota(b *testing.B) {
	s := startServer(b, "memory")
	cs := kubernetes.New(s.restClient("application/vnd.kubernetes.protobuf"))
	ctx := context.Background()
	quotas := cs.CoreV1().ResourceQuotas("bench")
	if _, err := quotas.Create(ctx, &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: "q"},
		Spec:       corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourceConfigMaps: resource.MustParse("1000000")}},
	}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	// Wait for the controller's first status, which admission needs.
	for {
		q, err := quotas.Get(ctx, "q", metav1.GetOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if _, ok := q.Status.Used[corev1.ResourceConfigMaps]; ok {
			break
		}
	}
	cms := cs.CoreV1().ConfigMaps("bench")
	i := 0
	for b.Loop() {
		i++
		if _, err := cms.Create(ctx, newBenchConfigMap(i), metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestResourceQuotaCountsCustomResources: count/widgets.example.com
// limits a custom resource; the controller counts widgets through a
// metadata informer it starts on demand and gives one back when deleted.
func TestResourceQuotaCountsCustomResources(t *testing.T) {
	s := startServer(t, "memory")
	cs := kubernetes.NewForConfigOrDie(s.restCfg)
	dc := dynamic.NewForConfigOrDie(s.restCfg)
	ctx := context.Background()
	createWidgetCRD(t, dc)
	quotas := cs.CoreV1().ResourceQuotas("bench")
	const name = corev1.ResourceName("count/widgets.example.com")
	if _, err := quotas.Create(ctx, &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets"},
		Spec:       corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{name: resource.MustParse("1")}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	used := func(want string) func(ctx context.Context) (bool, error) {
		return func(ctx context.Context) (bool, error) {
			q, err := quotas.Get(ctx, "widgets", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			u, ok := q.Status.Used[name]
			return ok && u.String() == want, nil
		}
	}
	poll(t, "the controller counts widgets", used("0"))
	ws := dc.Resource(widgets).Namespace("bench")
	if _, err := ws.Create(ctx, newWidget("w1"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err := ws.Create(ctx, newWidget("w2"), metav1.CreateOptions{})
	if want := `widgets.example.com "w2" is forbidden: exceeded quota: widgets, requested: count/widgets.example.com=1, used: count/widgets.example.com=1, limited: count/widgets.example.com=1`; !apierrors.IsForbidden(err) || err.Error() != want {
		t.Fatalf("second widget: got %v, want 403 %s", err, want)
	}
	if err := ws.Delete(ctx, "w1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "the controller gives back the deleted widget", used("0"))
}
