package controlplane

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kapi-dev/kapi/internal/admission"
)

// TestNamespaceReader: the informer answers, storage answers for a
// namespace the informer lacks and, for thirty seconds, for one just
// deleted.
func TestNamespaceReader(t *testing.T) {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	_ = idx.Add(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "cached"}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}})
	_ = idx.Add(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "going"}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}})
	now := time.Unix(1000, 0)
	var live []string
	r := &namespaceReader{
		lister: corelisters.NewNamespaceLister(idx), synced: func() bool { return true }, now: func() time.Time { return now },
		forceLive: map[string]time.Time{},
		live: func(_ context.Context, name string) (*corev1.Namespace, error) {
			live = append(live, name)
			return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating}}, nil
		},
	}
	get := func(name string) corev1.NamespacePhase {
		ns, err := r.get(context.Background(), name)
		if err != nil {
			t.Fatal(err)
		}
		return ns.Status.Phase
	}
	if get("cached") != corev1.NamespaceActive || get("new") != corev1.NamespaceTerminating || len(live) != 1 {
		t.Fatalf("live reads %v, want [new]", live)
	}
	r.observe(&admission.Attributes{Operation: admission.Delete, Name: "going", Resource: corev1.SchemeGroupVersion.WithResource("namespaces")})
	if get("going") != corev1.NamespaceTerminating {
		t.Error("a namespace just deleted was read from the informer")
	}
	now = now.Add(forceLiveLookupTTL + time.Second)
	if get("going") != corev1.NamespaceActive {
		t.Error("the live lookup outlasted its TTL")
	}
}
