package portallocator

import (
	"errors"
	"testing"
)

func TestAllocator(t *testing.T) {
	a, err := New(Range{Base: 30000, Size: 40})
	if err != nil {
		t.Fatal(err)
	}
	if a.staticBand != 16 {
		t.Errorf("static band %d", a.staticBand)
	}
	if err := a.Allocate(30005); err != nil {
		t.Fatal(err)
	}
	if err := a.Allocate(30005); !errors.Is(err, ErrAllocated) {
		t.Errorf("second allocate: %v", err)
	}
	var notInRange *NotInRangeError
	if err := a.Allocate(30040); !errors.As(err, &notInRange) || err.Error() != "provided port is not in the valid range. The range of valid ports is 30000-30039" {
		t.Errorf("out of range: %v", err)
	}
	// Dynamic allocation takes the upper band first.
	first, err := a.AllocateNext()
	if err != nil || first < 30016 {
		t.Errorf("first dynamic port %d (%v), want one above the static band", first, err)
	}
	seen := map[int]bool{30005: true, first: true}
	for range 38 {
		p, err := a.AllocateNext()
		if err != nil {
			t.Fatal(err)
		}
		if seen[p] {
			t.Fatalf("port %d handed out twice", p)
		}
		seen[p] = true
	}
	if _, err := a.AllocateNext(); !errors.Is(err, ErrFull) {
		t.Errorf("full range: %v", err)
	}
	a.Release(30007)
	if p, err := a.AllocateNext(); err != nil || p != 30007 {
		t.Errorf("after release got %d, %v", p, err)
	}
	a.Reset([]int{30001, 29999})
	if !a.Has(30001) || a.Has(30007) || a.Has(29999) {
		t.Error("reset did not replace the used set")
	}
	if _, err := New(Range{Base: 65000, Size: 1000}); err == nil {
		t.Error("range past 65535 accepted")
	}
}
