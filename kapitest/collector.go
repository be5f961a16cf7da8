package kapitest

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// startHeadroom is how far past the live heap the collector's target may
// go while servers start. A start allocates about 14 MB, several times
// what the server keeps; at Go's default target a test binary collected
// it once or twice on the path to ready, a sixth of Start's CPU. With this
// headroom a start usually runs without a collection, and the garbage is
// collected once Start has returned.
const startHeadroom = 64 << 20

// maxStartGCPercent caps the raised target, as the kapi binary's start
// does (package memlimit).
const maxStartGCPercent = 400

// startCollector raises the Go collector's target (GOGC) while at least
// one Start is running in the process, and puts the previous target back
// when the last one returns. The target is process-wide, so this state is
// too; starts running in parallel share one raise.
var startCollector struct {
	mu      sync.Mutex
	running int
	prev    int
	raised  bool
}

// holdCollections raises the target for one Start and returns the
// function that ends the hold. It leaves the target alone when the GOGC
// environment variable is set (the test's owner chose it) or when the
// live heap is already large enough that the default target leaves
// startHeadroom (many servers running): then raising would only grow the
// process.
func holdCollections() (release func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	c := &startCollector
	c.mu.Lock()
	defer c.mu.Unlock()
	c.running++
	if c.running == 1 && !c.raised {
		gogc, live := collectorState()
		// A target the test set itself (not the default) stays too.
		if percent := startGCPercent(live); gogc == 100 && percent > 100 {
			c.prev = debug.SetGCPercent(percent)
			c.raised = true
		}
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.running--
			if c.running == 0 && c.raised {
				// Put back now, and the collection it starts runs
				// into the test's first requests; put back after the
				// next collection, the start's garbage goes with the
				// one the raised target would have made anyway.
				runtime.AddCleanup(new(sentinel), func(struct{}) { restoreAfterCollection() }, struct{}{})
			}
		})
	}
}

// sentinel is garbage as soon as it is made; its cleanup runs once a
// collection found it. It holds a pointer so that it is not a tiny
// allocation, whose cleanups may never run.
type sentinel struct{ _ *byte }

// restoreAfterCollection puts the previous target back unless a Start
// began since the hold ended.
func restoreAfterCollection() {
	c := &startCollector
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running == 0 && c.raised {
		debug.SetGCPercent(c.prev)
		c.raised = false
	}
}

// startGCPercent is the target that leaves startHeadroom above a live
// heap of live bytes, at most maxStartGCPercent; 100 (the default) or
// less means no raise is needed.
func startGCPercent(live uint64) int {
	if live == 0 {
		return maxStartGCPercent
	}
	return int(min(uint64(maxStartGCPercent), startHeadroom*100/live))
}

// collectorState is the collector's current target (GOGC) and the heap
// its last collection found live.
func collectorState() (gogc int64, live uint64) {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() == metrics.KindUint64 {
		gogc = int64(s[0].Value.Uint64())
	}
	if s[1].Value.Kind() == metrics.KindUint64 {
		live = s[1].Value.Uint64()
	}
	return gogc, live
}
