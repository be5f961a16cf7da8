package controlplane

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// TestInformerSyncCheckStaysPassed: informer-sync fails while a started
// informer has not synced, passes once all have, and keeps passing when
// an informer started later (a controller's, after the server became
// ready) has not synced yet.
func TestInformerSyncCheckStaysPassed(t *testing.T) {
	client := fake.NewClientset()
	release := make(chan struct{})
	client.PrependReactor("list", "secrets", func(k8stesting.Action) (bool, runtime.Object, error) {
		<-release
		return true, &corev1.SecretList{}, nil
	})
	defer close(release)
	si := &sharedInformers{client: client, factory: newFanoutFactory(informers.NewSharedInformerFactory(client, 0), nil)}
	check := si.syncCheck()
	ctx, cancel := context.WithCancel(context.Background())
	defer func() {
		cancel()
		si.factory.Shutdown()
	}()

	si.factory.Core().V1().ConfigMaps().Informer()
	si.factory.Start(ctx.Done())
	deadline := time.Now().Add(10 * time.Second)
	for check.Check(httptest.NewRequest("GET", "/readyz", nil)) != nil {
		if time.Now().After(deadline) {
			t.Fatal("informer-sync did not pass once the configmaps informer synced")
		}
		time.Sleep(time.Millisecond)
	}

	si.factory.Core().V1().Secrets().Informer()
	si.factory.Start(ctx.Done())
	if err := check.Check(httptest.NewRequest("GET", "/readyz", nil)); err != nil {
		t.Errorf("informer-sync after a later informer started: %v, want it to keep passing", err)
	}

	fresh := (&sharedInformers{client: client, factory: si.factory}).syncCheck()
	if err := fresh.Check(httptest.NewRequest("GET", "/readyz", nil)); err == nil {
		t.Error("a check that never passed ignores a started informer that has not synced")
	}
}
