package storagetest

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kapi-dev/kapi/internal/storage"
)

var createTests = map[string]func(*testing.T, *fixture){
	"StoresAndReturnsObject": func(t *testing.T, f *fixture) {
		before := f.currentRV(t)
		out := f.create(t, "ns", "a", map[string]string{"app": "x"})
		if out.ResourceVersion == "" || out.Name != "a" || out.Data["key"] != "value" {
			t.Fatalf("Create returned %+v", out)
		}
		if rv, _ := f.store.Versioner().ObjectResourceVersion(out); rv <= before {
			t.Errorf("resourceVersion %d after create, want > %d", rv, before)
		}
		got := &corev1.ConfigMap{}
		if err := f.store.Get(f.ctx, ConfigMapKey("ns", "a"), storage.GetOptions{}, got); err != nil {
			t.Fatalf("Get: %v", err)
		}
		if diff := cmp.Diff(out, got); diff != "" {
			t.Errorf("Get differs from Create (-create +get):\n%s", diff)
		}
	},
	"KeyExists": func(t *testing.T, f *fixture) {
		f.create(t, "ns", "a", nil)
		err := f.store.Create(f.ctx, ConfigMapKey("ns", "a"), newConfigMap("ns", "a", nil), &corev1.ConfigMap{})
		wantCode(t, err, storage.ErrCodeKeyExists)
	},
	"RejectsResourceVersion": func(t *testing.T, f *fixture) {
		in := newConfigMap("ns", "a", nil)
		in.ResourceVersion = "5"
		if err := f.store.Create(f.ctx, ConfigMapKey("ns", "a"), in, &corev1.ConfigMap{}); err == nil {
			t.Fatal("Create accepted an object with a resourceVersion")
		}
	},
	"RejectsKeyOutsideResource": func(t *testing.T, f *fixture) {
		for _, key := range []string{"/secrets/ns/a", "/configmapsx/ns/a", "/configmaps/ns/../../secrets/a"} {
			if err := f.store.Create(f.ctx, key, newConfigMap("ns", "a", nil), &corev1.ConfigMap{}); err == nil {
				t.Errorf("Create(%q) succeeded, want an error", key)
			}
		}
	},
	"AdvancesRevision": func(t *testing.T, f *fixture) {
		a := f.create(t, "ns", "a", nil)
		b := f.create(t, "ns", "b", nil)
		ra, _ := f.store.Versioner().ObjectResourceVersion(a)
		rb, _ := f.store.Versioner().ObjectResourceVersion(b)
		if cur := f.currentRV(t); rb <= ra || cur < rb {
			t.Errorf("revisions a=%d b=%d current=%d, want a < b <= current", ra, rb, cur)
		}
	},
}

var getTests = map[string]func(*testing.T, *fixture){
	"NotFound": func(t *testing.T, f *fixture) {
		err := f.store.Get(f.ctx, ConfigMapKey("ns", "missing"), storage.GetOptions{}, &corev1.ConfigMap{})
		wantCode(t, err, storage.ErrCodeKeyNotFound)
	},
	"IgnoreNotFound": func(t *testing.T, f *fixture) {
		got := &corev1.ConfigMap{Data: map[string]string{"stale": "x"}}
		err := f.store.Get(f.ctx, ConfigMapKey("ns", "missing"), storage.GetOptions{IgnoreNotFound: true}, got)
		if err != nil {
			t.Fatalf("Get with IgnoreNotFound: %v", err)
		}
		if diff := cmp.Diff(&corev1.ConfigMap{}, got); diff != "" {
			t.Errorf("object not zeroed (-want +got):\n%s", diff)
		}
	},
	"ResourceVersionTooLarge": func(t *testing.T, f *fixture) {
		f.create(t, "ns", "a", nil)
		future := f.currentRV(t) + 100
		err := f.store.Get(f.ctx, ConfigMapKey("ns", "a"), storage.GetOptions{ResourceVersion: formatRV(future)}, &corev1.ConfigMap{})
		wantTooLarge(t, err, future)
	},
	"ResourceVersionZeroAndCurrent": func(t *testing.T, f *fixture) {
		out := f.create(t, "ns", "a", nil)
		for _, rv := range []string{"", "0", out.ResourceVersion} {
			got := &corev1.ConfigMap{}
			if err := f.store.Get(f.ctx, ConfigMapKey("ns", "a"), storage.GetOptions{ResourceVersion: rv}, got); err != nil {
				t.Fatalf("Get at resourceVersion %q: %v", rv, err)
			}
			if got.ResourceVersion != out.ResourceVersion {
				t.Errorf("Get at %q returned resourceVersion %s, want %s", rv, got.ResourceVersion, out.ResourceVersion)
			}
		}
	},
	"Count": func(t *testing.T, f *fixture) {
		f.create(t, "ns", "a", nil)
		f.create(t, "ns", "b", nil)
		f.create(t, "nsx", "c", nil)
		f.create(t, "other", "d", nil)
		for key, want := range map[string]int64{"/configmaps": 4, "/configmaps/ns": 2, "/configmaps/ns/": 2, "/configmaps/none": 0} {
			got, err := f.store.Count(f.ctx, key)
			if err != nil || got != want {
				t.Errorf("Count(%q) = %d, %v; want %d", key, got, err, want)
			}
		}
	},
}

var deleteTests = map[string]func(*testing.T, *fixture){
	"ReturnsDeletedObject": func(t *testing.T, f *fixture) {
		created := f.create(t, "ns", "a", nil)
		out := f.delete(t, "ns", "a")
		if out.Name != "a" || out.UID != created.UID {
			t.Errorf("Delete returned %s, want ns/a", describe(out))
		}
		if rv, _ := f.store.Versioner().ObjectResourceVersion(out); formatRV(rv) == created.ResourceVersion {
			t.Errorf("deleted object has the creation resourceVersion %d, want the deletion's", rv)
		}
		err := f.store.Get(f.ctx, ConfigMapKey("ns", "a"), storage.GetOptions{}, &corev1.ConfigMap{})
		wantCode(t, err, storage.ErrCodeKeyNotFound)
	},
	"NotFound": func(t *testing.T, f *fixture) {
		err := f.store.Delete(f.ctx, ConfigMapKey("ns", "missing"), &corev1.ConfigMap{}, nil, nil)
		wantCode(t, err, storage.ErrCodeKeyNotFound)
	},
	"Preconditions": func(t *testing.T, f *fixture) {
		created := f.create(t, "ns", "a", nil)
		tests := []struct {
			name    string
			pre     *storage.Preconditions
			message string
		}{
			{"wrong UID", &storage.Preconditions{UID: ptr(types.UID("other"))},
				"Precondition failed: UID in precondition: other, UID in object meta: " + string(created.UID)},
			{"wrong resourceVersion", &storage.Preconditions{ResourceVersion: ptr("1")},
				"Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: " + created.ResourceVersion},
		}
		for _, tt := range tests {
			err := f.store.Delete(f.ctx, ConfigMapKey("ns", "a"), &corev1.ConfigMap{}, tt.pre, nil)
			wantCode(t, err, storage.ErrCodeResourceVersionConflicts)
			if !strings.Contains(err.Error(), tt.message) {
				t.Errorf("%s: error %q does not contain %q", tt.name, err, tt.message)
			}
		}
		pre := &storage.Preconditions{UID: &created.UID, ResourceVersion: &created.ResourceVersion}
		if err := f.store.Delete(f.ctx, ConfigMapKey("ns", "a"), &corev1.ConfigMap{}, pre, nil); err != nil {
			t.Fatalf("Delete with matching preconditions: %v", err)
		}
	},
	"RetriesAfterConcurrentChange": func(t *testing.T, f *fixture) {
		f.create(t, "ns", "a", nil)
		var seen []string
		validate := func(_ context.Context, obj runtime.Object) error {
			cm := obj.(*corev1.ConfigMap)
			seen = append(seen, cm.Data["key"])
			if len(seen) == 1 {
				// Someone else writes between our read and our delete.
				f.update(t, "ns", "a", func(cm *corev1.ConfigMap) { cm.Data["key"] = "changed" })
			}
			return nil
		}
		out := &corev1.ConfigMap{}
		if err := f.store.Delete(f.ctx, ConfigMapKey("ns", "a"), out, nil, validate); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		if diff := cmp.Diff([]string{"value", "changed"}, seen); diff != "" {
			t.Errorf("validateDeletion saw (-want +got):\n%s", diff)
		}
		if out.Data["key"] != "changed" {
			t.Errorf("deleted object has data %v, want the state it was deleted in", out.Data)
		}
	},
	"ValidationAborts": func(t *testing.T, f *fixture) {
		f.create(t, "ns", "a", nil)
		errNo := errors.New("not allowed")
		var seen string
		validate := func(_ context.Context, obj runtime.Object) error {
			seen = obj.(*corev1.ConfigMap).Name
			return errNo
		}
		err := f.store.Delete(f.ctx, ConfigMapKey("ns", "a"), &corev1.ConfigMap{}, nil, validate)
		if !errors.Is(err, errNo) || seen != "a" {
			t.Fatalf("Delete = %v (validated %q), want the validation error for a", err, seen)
		}
		if err := f.store.Get(f.ctx, ConfigMapKey("ns", "a"), storage.GetOptions{}, &corev1.ConfigMap{}); err != nil {
			t.Errorf("object gone after a refused delete: %v", err)
		}
	},
}

func formatRV(rv uint64) string { return strconv.FormatUint(rv, 10) }
