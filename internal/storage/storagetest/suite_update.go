package storagetest

import (
	"errors"
	"strconv"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kapi-dev/kapi/internal/storage"
)

// updateFunc returns a tryUpdate that applies mutate to a copy of the input.
func updateFunc(mutate func(*corev1.ConfigMap)) storage.UpdateFunc {
	return func(in runtime.Object, _ storage.ResponseMeta) (runtime.Object, error) {
		cm := in.(*corev1.ConfigMap).DeepCopy()
		mutate(cm)
		return cm, nil
	}
}

var updateTests = map[string]func(*testing.T, *fixture){
	"Changes": func(t *testing.T, f *fixture) {
		created := f.create(t, "ns", "a", nil)
		var seenRV uint64
		out := &corev1.ConfigMap{}
		err := f.store.GuaranteedUpdate(f.ctx, ConfigMapKey("ns", "a"), out, false, nil,
			func(in runtime.Object, meta storage.ResponseMeta) (runtime.Object, error) {
				seenRV = meta.ResourceVersion
				cm := in.(*corev1.ConfigMap).DeepCopy()
				cm.Data["key"] = "new"
				return cm, nil
			})
		if err != nil {
			t.Fatalf("GuaranteedUpdate: %v", err)
		}
		if formatRV(seenRV) != created.ResourceVersion {
			t.Errorf("tryUpdate saw resourceVersion %d, want %s", seenRV, created.ResourceVersion)
		}
		if out.Data["key"] != "new" || out.ResourceVersion == created.ResourceVersion {
			t.Errorf("update returned data %v at resourceVersion %s (created at %s)", out.Data, out.ResourceVersion, created.ResourceVersion)
		}
		got := &corev1.ConfigMap{}
		if err := f.store.Get(f.ctx, ConfigMapKey("ns", "a"), storage.GetOptions{}, got); err != nil || got.ResourceVersion != out.ResourceVersion {
			t.Errorf("Get after update = %s, %v; want resourceVersion %s", describe(got), err, out.ResourceVersion)
		}
	},
	"NoOpKeepsResourceVersion": func(t *testing.T, f *fixture) {
		created := f.create(t, "ns", "a", nil)
		before := f.currentRV(t)
		out := f.update(t, "ns", "a", func(*corev1.ConfigMap) {})
		if out.ResourceVersion != created.ResourceVersion {
			t.Errorf("no-op update moved resourceVersion %s -> %s", created.ResourceVersion, out.ResourceVersion)
		}
		if after := f.currentRV(t); after != before {
			t.Errorf("no-op update moved the store revision %d -> %d", before, after)
		}
	},
	"ConcurrentUpdatersAllSucceed": func(t *testing.T, f *fixture) {
		f.create(t, "ns", "counter", nil)
		const workers = 10
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for range workers {
			wg.Go(func() {
				errs <- f.store.GuaranteedUpdate(f.ctx, ConfigMapKey("ns", "counter"), &corev1.ConfigMap{}, false, nil,
					updateFunc(func(cm *corev1.ConfigMap) {
						n, _ := strconv.Atoi(cm.Data["n"])
						cm.Data["n"] = strconv.Itoa(n + 1)
					}))
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Errorf("GuaranteedUpdate: %v", err)
			}
		}
		got := &corev1.ConfigMap{}
		if err := f.store.Get(f.ctx, ConfigMapKey("ns", "counter"), storage.GetOptions{}, got); err != nil {
			t.Fatal(err)
		}
		if got.Data["n"] != strconv.Itoa(workers) {
			t.Errorf("counter = %s after %d concurrent increments", got.Data["n"], workers)
		}
	},
	"RetriesAfterConcurrentChange": func(t *testing.T, f *fixture) {
		f.create(t, "ns", "a", nil)
		var seen []string
		out := &corev1.ConfigMap{}
		err := f.store.GuaranteedUpdate(f.ctx, ConfigMapKey("ns", "a"), out, false, nil,
			func(in runtime.Object, _ storage.ResponseMeta) (runtime.Object, error) {
				cm := in.(*corev1.ConfigMap).DeepCopy()
				seen = append(seen, cm.Data["key"])
				if len(seen) == 1 {
					// Someone else writes between our read and our write.
					f.update(t, "ns", "a", func(cm *corev1.ConfigMap) { cm.Data["key"] = "theirs" })
				}
				cm.Data["mine"] = "yes"
				return cm, nil
			})
		if err != nil {
			t.Fatalf("GuaranteedUpdate: %v", err)
		}
		if len(seen) != 2 || seen[1] != "theirs" {
			t.Errorf("tryUpdate saw %v, want a retry on the other writer's state", seen)
		}
		if out.Data["key"] != "theirs" || out.Data["mine"] != "yes" {
			t.Errorf("result data %v, want both writes", out.Data)
		}
	},
	"Preconditions": func(t *testing.T, f *fixture) {
		created := f.create(t, "ns", "a", nil)
		for _, pre := range []*storage.Preconditions{
			{UID: ptr(types.UID("other"))},
			{ResourceVersion: ptr("1")},
		} {
			err := f.store.GuaranteedUpdate(f.ctx, ConfigMapKey("ns", "a"), &corev1.ConfigMap{}, false, pre,
				updateFunc(func(cm *corev1.ConfigMap) { cm.Data["key"] = "new" }))
			wantCode(t, err, storage.ErrCodeResourceVersionConflicts)
		}
		pre := &storage.Preconditions{UID: &created.UID, ResourceVersion: &created.ResourceVersion}
		err := f.store.GuaranteedUpdate(f.ctx, ConfigMapKey("ns", "a"), &corev1.ConfigMap{}, false, pre,
			updateFunc(func(cm *corev1.ConfigMap) { cm.Data["key"] = "new" }))
		if err != nil {
			t.Errorf("update with matching preconditions: %v", err)
		}
	},
	"NotFound": func(t *testing.T, f *fixture) {
		err := f.store.GuaranteedUpdate(f.ctx, ConfigMapKey("ns", "missing"), &corev1.ConfigMap{}, false, nil,
			updateFunc(func(*corev1.ConfigMap) {}))
		wantCode(t, err, storage.ErrCodeKeyNotFound)
	},
	"IgnoreNotFoundCreates": func(t *testing.T, f *fixture) {
		out := &corev1.ConfigMap{}
		err := f.store.GuaranteedUpdate(f.ctx, ConfigMapKey("ns", "new"), out, true, nil,
			func(in runtime.Object, meta storage.ResponseMeta) (runtime.Object, error) {
				if cm := in.(*corev1.ConfigMap); cm.Name != "" || meta.ResourceVersion != 0 {
					t.Errorf("tryUpdate got %s at resourceVersion %d, want a zero object", describe(cm), meta.ResourceVersion)
				}
				return newConfigMap("ns", "new", nil), nil
			})
		if err != nil {
			t.Fatalf("create-on-update: %v", err)
		}
		if out.Name != "new" || out.ResourceVersion == "" {
			t.Errorf("create-on-update returned %s", describe(out))
		}
	},
	"TryUpdateErrorAborts": func(t *testing.T, f *fixture) {
		created := f.create(t, "ns", "a", nil)
		errNo := errors.New("refused")
		err := f.store.GuaranteedUpdate(f.ctx, ConfigMapKey("ns", "a"), &corev1.ConfigMap{}, false, nil,
			func(runtime.Object, storage.ResponseMeta) (runtime.Object, error) { return nil, errNo })
		if !errors.Is(err, errNo) {
			t.Fatalf("GuaranteedUpdate = %v, want the tryUpdate error", err)
		}
		got := &corev1.ConfigMap{}
		if err := f.store.Get(f.ctx, ConfigMapKey("ns", "a"), storage.GetOptions{}, got); err != nil || got.ResourceVersion != created.ResourceVersion {
			t.Errorf("object changed by an aborted update: %s, %v", describe(got), err)
		}
	},
}
