package storage

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

func TestItemEncodingsWrite(t *testing.T) {
	var e ItemEncodings
	var calls atomic.Int64
	encoder := func(data string) func() ([]byte, error) {
		buf := []byte(data)
		return func() ([]byte, error) {
			calls.Add(1)
			return buf, nil
		}
	}
	write := func(id string, encode func() ([]byte, error)) string {
		t.Helper()
		var out bytes.Buffer
		if err := e.Write(id, encode, &out); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}

	if got := write("json", encoder("a")); got != "a" || calls.Load() != 1 {
		t.Fatalf("first write %q after %d encodes, want %q after 1", got, calls.Load(), "a")
	}
	if got := write("json", encoder("other")); got != "a" || calls.Load() != 1 {
		t.Errorf("second write %q after %d encodes, want the recorded %q without encoding", got, calls.Load(), "a")
	}
	if got := write("yaml", encoder("b")); got != "b" || write("json", encoder("x")) != "a" {
		t.Errorf("a second id: got %q, and the first id must keep its bytes", got)
	}

	// A failed encoding is not recorded.
	boom := errors.New("boom")
	if err := e.Write("proto", func() ([]byte, error) { return nil, boom }, &bytes.Buffer{}); !errors.Is(err, boom) {
		t.Errorf("error %v, want %v", err, boom)
	}
	if got := write("proto", encoder("c")); got != "c" {
		t.Errorf("after a failure: %q, want %q", got, "c")
	}
}

// TestItemEncodingsKeepTheirCopy: an encoder may reuse its buffer, so
// the recorded bytes must be a copy.
func TestItemEncodingsKeepTheirCopy(t *testing.T) {
	var e ItemEncodings
	buf := []byte("first")
	if err := e.Write("json", func() ([]byte, error) { return buf, nil }, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	copy(buf, "XXXXX")
	var out bytes.Buffer
	_ = e.Write("json", nil, &out)
	if out.String() != "first" {
		t.Errorf("recorded %q, want %q", out.String(), "first")
	}
}

// TestItemEncodingsConcurrent is for -race: many lists write the same
// object's encodings at once, under several ids.
func TestItemEncodingsConcurrent(t *testing.T) {
	var e ItemEncodings
	ids := []string{"a", "b", "c", "d"}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				for _, id := range ids {
					var out bytes.Buffer
					if err := e.Write(id, func() ([]byte, error) { return []byte(id), nil }, &out); err != nil || out.String() != id {
						t.Errorf("id %s: %q, %v", id, out.String(), err)
					}
				}
			}
		})
	}
	wg.Wait()
	if n := len(*e.entries.Load()); n != len(ids) {
		t.Errorf("%d entries, want %d", n, len(ids))
	}
}

func TestListSourcesFor(t *testing.T) {
	list, other := &corev1.ConfigMapList{}, &corev1.ConfigMapList{}
	encs := []*ItemEncodings{{}}
	RecordListSources(t.Context(), list, encs) // not asked: a no-op
	if WantsListSources(t.Context()) || ListSourcesFrom(t.Context()) != nil {
		t.Error("a plain context asks for list sources")
	}
	ctx, s := WithListSources(t.Context())
	if !WantsListSources(ctx) || ListSourcesFrom(ctx) != s {
		t.Fatal("the context does not carry its ListSources")
	}
	if s.For(list) != nil {
		t.Error("sources before any list")
	}
	RecordListSources(ctx, list, encs)
	if got := s.For(list); len(got) != 1 || got[0] != encs[0] {
		t.Errorf("For(list) = %v, want %v", got, encs)
	}
	if s.For(other) != nil {
		t.Error("another list (a copy or conversion) got the sources")
	}
	var none *ListSources
	if none.For(list) != nil {
		t.Error("nil ListSources has sources")
	}
}

// TestItemEncodingsBudget: past the budget, items are written but not
// kept; kept bytes go back to the budget once their encodings are
// garbage.
func TestItemEncodingsBudget(t *testing.T) {
	saved := itemEncodingsBudget
	t.Cleanup(func() { itemEncodingsBudget = saved })
	// Let encodings earlier tests left behind give their bytes back first.
	for range 3 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	base := itemEncodingBytes.Load()
	itemEncodingsBudget = base + 100

	var calls int
	encode := func(data string) func() ([]byte, error) {
		return func() ([]byte, error) { calls++; return []byte(data), nil }
	}
	kept := &ItemEncodings{}
	var out bytes.Buffer
	if err := kept.Write("json", encode(strings.Repeat("k", 60)), &out); err != nil {
		t.Fatal(err)
	}
	if got := itemEncodingBytes.Load() - base; got != 60 {
		t.Fatalf("%d bytes held, want 60", got)
	}

	over := &ItemEncodings{}
	for range 2 {
		out.Reset()
		if err := over.Write("json", encode(strings.Repeat("o", 60)), &out); err != nil || out.Len() != 60 {
			t.Fatalf("over the budget: %q, %v", out.String(), err)
		}
	}
	if calls != 3 || itemEncodingBytes.Load()-base != 60 {
		t.Errorf("over the budget: %d encodes (want 3: nothing kept), %d bytes held (want 60)", calls, itemEncodingBytes.Load()-base)
	}

	kept = nil
	deadline := time.Now().Add(10 * time.Second)
	for itemEncodingBytes.Load() > base {
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes still held after their encodings became garbage", itemEncodingBytes.Load()-base)
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}
