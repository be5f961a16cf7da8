package controlplane

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
)

// TestFanoutFactoryOneFanoutPerInformer: the typed accessors and
// ForResource (the garbage collector's way in) reach one fan-out per
// informer, and handlers added either way go through it.
func TestFanoutFactoryOneFanoutPerInformer(t *testing.T) {
	f := newFanoutFactory(informers.NewSharedInformerFactory(fake.NewClientset(), 0), nil)
	typed := f.Core().V1().Pods().Informer()
	generic, err := f.ForResource(corev1.SchemeGroupVersion.WithResource("pods"))
	if err != nil {
		t.Fatal(err)
	}
	if f.fanouts.Wrap(typed) != f.fanouts.Wrap(generic.Informer()) || f.fanouts.Wrap(typed) != f.fanouts.Wrap(f.Core().V1().Pods().Informer()) {
		t.Fatal("one informer has more than one fan-out")
	}
	for name, inf := range map[string]cache.SharedIndexInformer{"typed": typed, "ForResource": generic.Informer()} {
		reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{})
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%T", reg); got != "*fanout.registration" {
			t.Errorf("%s informer's registration is a %s, want the fan-out's", name, got)
		}
	}
}

// TestFanoutFactoryLends: a lent informer is what the typed accessor and
// ForResource hand out, and the wrapped factory never builds its own.
func TestFanoutFactoryLends(t *testing.T) {
	client := fake.NewClientset()
	owner := informers.NewSharedInformerFactory(client, 0)
	lent := owner.Core().V1().Pods().Informer()
	inner := informers.NewSharedInformerFactory(client, 0)
	f := newFanoutFactory(inner, nil)
	f.lend(corev1.SchemeGroupVersion.WithResource("pods"), &corev1.Pod{}, lent)

	generic, err := f.ForResource(corev1.SchemeGroupVersion.WithResource("pods"))
	if err != nil {
		t.Fatal(err)
	}
	for name, inf := range map[string]cache.SharedIndexInformer{"typed": f.Core().V1().Pods().Informer(), "ForResource": generic.Informer()} {
		if inf.GetIndexer() != lent.GetIndexer() {
			t.Errorf("%s informer is not the lent one", name)
		}
	}
	if err := lent.GetIndexer().Add(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := generic.Lister().ByNamespace("ns").Get("p"); err != nil {
		t.Errorf("ForResource's lister does not read the lent informer: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inner.StartWithContext(ctx)
	defer inner.Shutdown()
	if started := inner.WaitForCacheSync(ctx.Done()); len(started) != 0 {
		t.Errorf("the wrapped factory built informers of its own: %v", started)
	}
}
