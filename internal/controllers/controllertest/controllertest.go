// Package controllertest is what the unit tests of the in-process
// controllers share: a fake clientset that fills in what the apiserver
// would (UIDs, generated names, creation times, a new Pod's phase),
// copying what the fake API holds into informer caches, as a caught-up
// watch would, and fixture objects. It is imported by _test.go files
// only.
package controllertest

import (
	"fmt"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"
)

// ServerDefaults says what the fake API fills in on create besides a
// UID ("uid-<n>") and a generated name ("<generateName><n, 5 digits>").
type ServerDefaults struct {
	// Clock, when set, gives creationTimestamp.
	Clock clock.PassiveClock
	// PendingPods gives a new Pod without a phase phase Pending.
	PendingPods bool
}

// NewClientset is a fake clientset over objs that fills in on create what
// d says, as the apiserver would; numbers count the creates.
func NewClientset(d ServerDefaults, objs ...runtime.Object) *fake.Clientset {
	client := fake.NewClientset(objs...)
	var n atomic.Int32
	client.PrependReactor("create", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
		obj := a.(k8stesting.CreateAction).GetObject()
		m, ok := obj.(metav1.Object)
		if !ok {
			return false, nil, nil
		}
		i := n.Add(1)
		if m.GetUID() == "" {
			m.SetUID(types.UID(fmt.Sprintf("uid-%d", i)))
		}
		if m.GetName() == "" && m.GetGenerateName() != "" {
			m.SetName(fmt.Sprintf("%s%05d", m.GetGenerateName(), i))
		}
		if d.Clock != nil {
			m.SetCreationTimestamp(metav1.NewTime(d.Clock.Now()))
		}
		if pod, ok := obj.(*corev1.Pod); ok && d.PendingPods && pod.Status.Phase == "" {
			pod.Status.Phase = corev1.PodPending
		}
		return false, nil, nil
	})
	return client
}

// Replace makes inf's cache hold exactly items (a List's Items), as a
// caught-up watch would.
func Replace[T any](t testing.TB, inf cache.SharedIndexInformer, items []T) {
	t.Helper()
	objs := make([]any, len(items))
	for i := range items {
		objs[i] = &items[i]
	}
	if err := inf.GetIndexer().Replace(objs, ""); err != nil {
		t.Fatal(err)
	}
}
