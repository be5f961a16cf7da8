package inprocess

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// TestInformerReadsTheCacheWithoutWriting: an informer fed from a watch
// cache shares the cache's maps. While it follows updates, other readers
// list the cache and encode what they get, and others encode the
// informer's objects: under -race, any write the in-process path made to
// an object the cache shares (its kind, its labels) is reported.
func TestInformerReadsTheCacheWithoutWriting(t *testing.T) {
	f := newFixtureOn(t, true)
	const n = 20
	for i := range n {
		f.createConfigMap(t, "a", fmt.Sprintf("cm-%d", i), map[string]string{"round": "0"})
	}
	inf := f.r.NewInformer(&corev1.ConfigMap{}, "", nil, 0)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { inf.RunWithContext(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("the informer did not sync")
	}

	readCtx, stopReading := context.WithCancel(ctx)
	var readers sync.WaitGroup
	for range 2 {
		readers.Go(func() {
			for readCtx.Err() == nil {
				list, err := f.configMaps.List(registrytest.NamespaceContext(""), &metainternalversion.ListOptions{ResourceVersion: "0"})
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := json.Marshal(list); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	readers.Go(func() {
		for readCtx.Err() == nil {
			for _, obj := range inf.GetStore().List() {
				if _, err := json.Marshal(obj); err != nil {
					t.Error(err)
					return
				}
			}
		}
	})

	ctxA := registrytest.NamespaceContext("a")
	for round := 1; round <= 3; round++ {
		for i := range n {
			cm := &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i), Namespace: "a", Labels: map[string]string{"round": fmt.Sprint(round)}},
				Data:       map[string]string{"round": fmt.Sprint(round)},
			}
			if _, _, err := f.configMaps.Update(ctxA, cm.Name, rest.DefaultUpdatedObjectInfo(cm), rest.ValidateAllObjectFunc, rest.ValidateAllObjectUpdateFunc, false, &metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	waitFor(t, func() bool {
		for _, obj := range inf.GetStore().List() {
			if obj.(*corev1.ConfigMap).Labels["round"] != "3" {
				return false
			}
		}
		return true
	})
	stopReading()
	readers.Wait()

	// The cache still serves its objects as they were written, kind and all.
	list, err := f.configMaps.List(registrytest.NamespaceContext(""), &metainternalversion.ListOptions{ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	for _, cm := range list.(*corev1.ConfigMapList).Items {
		if cm.Data["round"] != "3" || cm.Labels["round"] != "3" {
			t.Errorf("the cache's %s holds data %v labels %v, want round 3", cm.Name, cm.Data, cm.Labels)
		}
	}
}
