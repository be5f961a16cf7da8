package cacher

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/storagetest"
)

// TestListRecordsItsSources pins what a list that asks for its sources
// learns: one storage.ItemEncodings per item, in order, the same for an
// object version on every list (also on a continued page) and a new one
// once the object changes; none for a list the cache did not serve, and
// nothing made for lists that did not ask.
func TestListRecordsItsSources(t *testing.T) {
	f := newFixture(t, Config{})
	f.create("ns", "a")
	f.create("ns", "b")
	f.create("ns", "c")
	list := func(opts storage.ListOptions) (*corev1.ConfigMapList, []*storage.ItemEncodings) {
		t.Helper()
		ctx, sources := storage.WithListSources(f.ctx)
		if opts.Predicate.Label == nil {
			limit, cont := opts.Predicate.Limit, opts.Predicate.Continue
			opts.Predicate = storage.Everything
			opts.Predicate.Limit, opts.Predicate.Continue = limit, cont
		}
		out := &corev1.ConfigMapList{}
		if err := f.c.GetList(ctx, "/configmaps", opts, out); err != nil {
			t.Fatal(err)
		}
		if other := (&corev1.ConfigMapList{}); sources.For(other) != nil {
			t.Error("the sources are handed out for another list")
		}
		return out, sources.For(out)
	}
	all := storage.ListOptions{Recursive: true, ResourceVersion: "0"}

	first, encs := list(all)
	if len(encs) != len(first.Items) || len(encs) != 3 {
		t.Fatalf("%d sources for %d items, want 3 for 3", len(encs), len(first.Items))
	}
	_, again := list(all)
	for i := range encs {
		if again[i] != encs[i] {
			t.Errorf("item %d: another list got other encodings of the same object version", i)
		}
	}

	f.update("ns", "b", "changed")
	_, changed := list(all)
	if changed[0] != encs[0] || changed[2] != encs[2] {
		t.Error("unchanged objects got new encodings")
	}
	if changed[1] == encs[1] {
		t.Error("the changed object kept the encodings of its old version")
	}

	paged := all
	paged.Predicate.Limit = 2
	page, pageEncs := list(paged)
	if len(pageEncs) != 2 || pageEncs[0] != changed[0] || pageEncs[1] != changed[1] {
		t.Errorf("first page sources %v, want the first two of %v", pageEncs, changed)
	}
	paged.Predicate.Continue = page.Continue
	paged.ResourceVersion = ""
	_, rest := list(paged)
	if len(rest) != 1 || rest[0] != changed[2] {
		t.Errorf("continued page sources %v, want the last of %v", rest, changed)
	}

	exact := storage.ListOptions{Recursive: true, ResourceVersion: first.ResourceVersion, ResourceVersionMatch: "Exact"}
	if _, encs := list(exact); encs != nil {
		t.Errorf("a list storage served has sources %v", encs)
	}

	f.create("ns", "d")
	f.list("/configmaps", all)
	f.c.state.mu.RLock()
	it, ok := f.c.state.getLocked(storagetest.ConfigMapKey("ns", "d"))
	f.c.state.mu.RUnlock()
	if !ok || it.enc.Load() != nil {
		t.Errorf("a list that did not ask made encodings (found %v)", ok)
	}
}
