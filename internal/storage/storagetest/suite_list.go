package storagetest

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/storage"
)

var listTests = map[string]func(*testing.T, *fixture){
	"Prefix": func(t *testing.T, f *fixture) {
		f.create(t, "a", "one", nil)
		f.create(t, "a", "two", nil)
		f.create(t, "ab", "three", nil) // shares the name prefix "a"
		f.create(t, "b", "four", nil)
		tests := []struct {
			key  string
			want []string
		}{
			{"/configmaps/a", []string{"a/one", "a/two"}},
			{"/configmaps/a/", []string{"a/one", "a/two"}},
			{"/configmaps", []string{"a/one", "a/two", "ab/three", "b/four"}},
			{"/configmaps/c", nil},
		}
		for _, tt := range tests {
			list := f.list(t, tt.key, storage.ListOptions{Recursive: true, Predicate: storage.Everything})
			if diff := cmp.Diff(tt.want, names(list)); diff != "" {
				t.Errorf("list %s (-want +got):\n%s", tt.key, diff)
			}
			if list.ResourceVersion == "" {
				t.Errorf("list %s has no resourceVersion", tt.key)
			}
		}
	},
	"SingleKey": func(t *testing.T, f *fixture) {
		f.create(t, "a", "one", nil)
		f.create(t, "a", "one-more", nil)
		list := f.list(t, ConfigMapKey("a", "one"), storage.ListOptions{Predicate: storage.Everything})
		if diff := cmp.Diff([]string{"a/one"}, names(list)); diff != "" {
			t.Errorf("non-recursive list (-want +got):\n%s", diff)
		}
	},
	"Selectors": func(t *testing.T, f *fixture) {
		f.create(t, "a", "one", map[string]string{"app": "web"})
		f.create(t, "a", "two", map[string]string{"app": "db"})
		f.create(t, "b", "one", map[string]string{"app": "web"})
		tests := []struct {
			label, field string
			want         []string
		}{
			{"app=web", "", []string{"a/one", "b/one"}},
			{"app!=web", "", []string{"a/two"}},
			{"", "metadata.name=one", []string{"a/one", "b/one"}},
			{"", "metadata.namespace=a,metadata.name!=one", []string{"a/two"}},
			{"app=web", "metadata.namespace=b", []string{"b/one"}},
			{"app=none", "", nil},
		}
		for _, tt := range tests {
			pred, err := Predicate(tt.label, tt.field)
			if err != nil {
				t.Fatal(err)
			}
			list := f.list(t, "/configmaps", storage.ListOptions{Recursive: true, Predicate: pred})
			if diff := cmp.Diff(tt.want, names(list)); diff != "" {
				t.Errorf("labels %q fields %q (-want +got):\n%s", tt.label, tt.field, diff)
			}
		}
	},
	"Paging": func(t *testing.T, f *fixture) {
		for _, n := range []string{"a", "b", "c", "d", "e"} {
			f.create(t, "ns", n, nil)
		}
		pred := storage.Everything
		pred.Limit = 2
		opts := storage.ListOptions{Recursive: true, Predicate: pred}
		first := f.list(t, "/configmaps/ns", opts)
		checkPage(t, first, []string{"ns/a", "ns/b"}, true, ptr(int64(3)))
		// Writes after the first page must not show up in later pages.
		f.create(t, "ns", "bb", nil)
		f.delete(t, "ns", "e")
		opts.Predicate.Continue = first.Continue
		second := f.list(t, "/configmaps/ns", opts)
		checkPage(t, second, []string{"ns/c", "ns/d"}, true, ptr(int64(1)))
		if second.ResourceVersion != first.ResourceVersion {
			t.Errorf("second page resourceVersion %s, want the first page's %s", second.ResourceVersion, first.ResourceVersion)
		}
		opts.Predicate.Continue = second.Continue
		third := f.list(t, "/configmaps/ns", opts)
		checkPage(t, third, []string{"ns/e"}, false, nil)
	},
	"PagingWithFilter": func(t *testing.T, f *fixture) {
		for i, n := range []string{"a", "b", "c", "d", "e", "f", "g"} {
			lbls := map[string]string{"even": "false"}
			if i%2 == 0 {
				lbls["even"] = "true"
			}
			f.create(t, "ns", n, lbls)
		}
		pred, _ := Predicate("even=true", "")
		pred.Limit = 2
		opts := storage.ListOptions{Recursive: true, Predicate: pred}
		var got []string
		for page := 0; ; page++ {
			list := f.list(t, "/configmaps", opts)
			if list.RemainingItemCount != nil {
				t.Errorf("filtered page has remainingItemCount %d, want none", *list.RemainingItemCount)
			}
			if len(list.Items) > 2 {
				t.Errorf("page %d has %d items, limit is 2", page, len(list.Items))
			}
			got = append(got, names(list)...)
			if list.Continue == "" {
				break
			}
			opts.Predicate.Continue = list.Continue
		}
		if diff := cmp.Diff([]string{"ns/a", "ns/c", "ns/e", "ns/g"}, got); diff != "" {
			t.Errorf("filtered pages (-want +got):\n%s", diff)
		}
	},
	"InvalidContinue": func(t *testing.T, f *fixture) {
		pred := storage.Everything
		pred.Limit = 1
		for _, token := range []string{"not-a-token", "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiIuLi94In0"} {
			pred.Continue = token
			err := f.store.GetList(f.ctx, "/configmaps", storage.ListOptions{Recursive: true, Predicate: pred}, &corev1.ConfigMapList{})
			wantCode(t, err, storage.ErrCodeInvalidContinue)
		}
	},
	"ResourceVersionExact": func(t *testing.T, f *fixture) {
		created := f.create(t, "ns", "a", nil)
		f.update(t, "ns", "a", func(cm *corev1.ConfigMap) { cm.Data["key"] = "new" })
		f.create(t, "ns", "b", nil)
		opts := storage.ListOptions{Recursive: true, Predicate: storage.Everything,
			ResourceVersion: created.ResourceVersion, ResourceVersionMatch: metav1.ResourceVersionMatchExact}
		list := f.list(t, "/configmaps", opts)
		if diff := cmp.Diff([]string{"ns/a"}, names(list)); diff != "" {
			t.Fatalf("exact list (-want +got):\n%s", diff)
		}
		if list.ResourceVersion != created.ResourceVersion || list.Items[0].Data["key"] != "value" {
			t.Errorf("exact list at %s returned resourceVersion %s and data %v, want the old state",
				created.ResourceVersion, list.ResourceVersion, list.Items[0].Data)
		}
	},
	"ResourceVersionExactTooLarge": func(t *testing.T, f *fixture) {
		f.create(t, "ns", "a", nil)
		future := f.currentRV(t) + 100
		opts := storage.ListOptions{Recursive: true, Predicate: storage.Everything,
			ResourceVersion: formatRV(future), ResourceVersionMatch: metav1.ResourceVersionMatchExact}
		err := f.store.GetList(f.ctx, "/configmaps", opts, &corev1.ConfigMapList{})
		wantTooLarge(t, err, future)
	},
	"ResourceVersionNotOlderThan": func(t *testing.T, f *fixture) {
		created := f.create(t, "ns", "a", nil)
		opts := storage.ListOptions{Recursive: true, Predicate: storage.Everything,
			ResourceVersion: created.ResourceVersion, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan}
		list := f.list(t, "/configmaps", opts)
		got, _ := f.store.Versioner().ParseResourceVersion(list.ResourceVersion)
		want, _ := f.store.Versioner().ObjectResourceVersion(created)
		if got < want || len(list.Items) != 1 {
			t.Errorf("list at resourceVersion %d has %d items, want 1 at not older than %d", got, len(list.Items), want)
		}
		opts.ResourceVersion = formatRV(f.currentRV(t) + 100)
		err := f.store.GetList(f.ctx, "/configmaps", opts, &corev1.ConfigMapList{})
		wantCode(t, err, storage.ErrCodeTooLargeResourceVersion)
	},
	"ResourceVersionCompacted": func(t *testing.T, f *fixture) {
		c := compactor(t, f)
		created := f.create(t, "ns", "a", nil)
		f.update(t, "ns", "a", func(cm *corev1.ConfigMap) { cm.Data["key"] = "new" })
		f.update(t, "ns", "a", func(cm *corev1.ConfigMap) { cm.Data["key"] = "newer" })
		if err := c.Compact(f.ctx, int64(f.currentRV(t))); err != nil {
			t.Fatalf("Compact: %v", err)
		}
		opts := storage.ListOptions{Recursive: true, Predicate: storage.Everything,
			ResourceVersion: created.ResourceVersion, ResourceVersionMatch: metav1.ResourceVersionMatchExact}
		err := f.store.GetList(f.ctx, "/configmaps", opts, &corev1.ConfigMapList{})
		wantCode(t, err, storage.ErrCodeExpired)
	},
	"ContinueCompacted": func(t *testing.T, f *fixture) {
		c := compactor(t, f)
		for _, name := range []string{"a", "b", "c"} {
			f.create(t, "ns", name, nil)
		}
		opts := storage.ListOptions{Recursive: true, Predicate: storage.Everything}
		opts.Predicate.Limit = 1
		first := &corev1.ConfigMapList{}
		if err := f.store.GetList(f.ctx, "/configmaps", opts, first); err != nil {
			t.Fatalf("first page: %v", err)
		}
		f.update(t, "ns", "a", func(cm *corev1.ConfigMap) { cm.Data["key"] = "new" })
		if err := c.Compact(f.ctx, int64(f.currentRV(t))); err != nil {
			t.Fatalf("Compact: %v", err)
		}
		opts.Predicate.Continue = first.Continue
		err := f.store.GetList(f.ctx, "/configmaps", opts, &corev1.ConfigMapList{})
		wantCode(t, err, storage.ErrCodeExpired)
		var se *storage.Error
		if !errors.As(err, &se) || se.Continue == "" {
			t.Fatalf("expired continue error %v carries no fresh token", err)
		}
		// The fresh token continues after "a" at the latest revision.
		opts.Predicate.Continue = se.Continue
		opts.Predicate.Limit = 10
		rest := &corev1.ConfigMapList{}
		if err := f.store.GetList(f.ctx, "/configmaps", opts, rest); err != nil {
			t.Fatalf("continuing with the fresh token: %v", err)
		}
		if diff := cmp.Diff([]string{"ns/b", "ns/c"}, names(rest)); diff != "" {
			t.Errorf("items after the fresh token (-want +got):\n%s", diff)
		}
	},
	"Empty": func(t *testing.T, f *fixture) {
		list := f.list(t, "/configmaps", storage.ListOptions{Recursive: true, Predicate: storage.Everything})
		if len(list.Items) != 0 || list.ResourceVersion == "" || list.Continue != "" {
			t.Errorf("empty list = %d items, resourceVersion %q, continue %q", len(list.Items), list.ResourceVersion, list.Continue)
		}
	},
}

func (f *fixture) list(t *testing.T, key string, opts storage.ListOptions) *corev1.ConfigMapList {
	t.Helper()
	list := &corev1.ConfigMapList{}
	if err := f.store.GetList(f.ctx, key, opts, list); err != nil {
		t.Fatalf("GetList %s: %v", key, err)
	}
	return list
}

func checkPage(t *testing.T, list *corev1.ConfigMapList, want []string, more bool, remaining *int64) {
	t.Helper()
	if diff := cmp.Diff(want, names(list)); diff != "" {
		t.Errorf("page items (-want +got):\n%s", diff)
	}
	if (list.Continue != "") != more {
		t.Errorf("page continue = %q, want more=%v", list.Continue, more)
	}
	if diff := cmp.Diff(remaining, list.RemainingItemCount); diff != "" {
		t.Errorf("remainingItemCount (-want +got):\n%s", diff)
	}
}

func names(list *corev1.ConfigMapList) []string {
	var out []string
	for _, cm := range list.Items {
		out = append(out, cm.Namespace+"/"+cm.Name)
	}
	return out
}

func compactor(t *testing.T, f *fixture) Compactor {
	t.Helper()
	c, ok := f.backend.(Compactor)
	if !ok {
		t.Skip("backend cannot compact")
	}
	return c
}
