package controlplane

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
)

// TestFanoutFactoryOneFanoutPerInformer: the typed accessors and
// ForResource (the garbage collector's way in) reach one fan-out per
// informer, and handlers added either way go through it.
func TestFanoutFactoryOneFanoutPerInformer(t *testing.T) {
	f := newFanoutFactory(informers.NewSharedInformerFactory(fake.NewClientset(), 0))
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
