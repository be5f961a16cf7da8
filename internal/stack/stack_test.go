package stack

import (
	"sync"
	"testing"
)

// deepCall recurses depth times with a frame of some size, as a request's
// handler chain and managed-fields walk do.
//
//go:noinline
func deepCall(depth int) byte {
	var frame [256]byte
	frame[depth%len(frame)] = byte(depth)
	if depth == 0 {
		return frame[0]
	}
	return deepCall(depth-1) + frame[(depth+1)%len(frame)]
}

// BenchmarkRequestStack compares a request-like call on a fresh goroutine
// with its stack grown step by step, and grown once first.
func BenchmarkRequestStack(b *testing.B) {
	for _, bc := range []struct {
		name string
		grow func()
	}{
		{"grown-on-demand", func() {}},
		{"grown-first", GrowForHandler},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var wg sync.WaitGroup
			for b.Loop() {
				wg.Go(func() {
					bc.grow()
					keepFrame([]byte{deepCall(150)}) // ~45 KiB deep
				})
				wg.Wait()
			}
		})
	}
}
