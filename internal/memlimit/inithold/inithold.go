// Package inithold holds the garbage collector off from the first moments
// of the kapi process until its command takes over (memlimit's start-up
// collector, at most holdFor later): initializing the binary's 500-odd
// packages allocates ~5 MB and, at the default target, collected twice
// before the command even ran, and those two collections cost more of a
// test server's start than all the later ones (envtest's kube-apiserver
// drop-in: -20 ms of CPU). A soft memory limit bounds the heap
// meanwhile. Only the kapi command imports this package, for its init:
// a test binary's collector is left alone.
package inithold

import (
	"os"
	"runtime/debug"
	"sync"
	"time"
)

// holdLimit caps the heap while collections are held: they run again
// once it is reached. A start allocates a few tens of MB.
const holdLimit = 128 << 20

// holdFor bounds the hold in time, for commands that never release it.
const holdFor = time.Second

var (
	mu                  sync.Mutex
	held                bool
	prevPercent         int
	prevLimit           int64
	releaseAfterHoldFor *time.Timer
)

func init() {
	if os.Getenv("GOGC") != "" {
		return // the operator's choice
	}
	hold()
}

func hold() {
	mu.Lock()
	defer mu.Unlock()
	prevPercent = debug.SetGCPercent(-1)
	prevLimit = debug.SetMemoryLimit(-1)
	debug.SetMemoryLimit(min(prevLimit, holdLimit))
	held = true
	releaseAfterHoldFor = time.AfterFunc(holdFor, Release)
}

// Release puts back the collector's target and memory limit the process
// had, if the hold is still on; later calls do nothing.
func Release() {
	mu.Lock()
	defer mu.Unlock()
	if !held {
		return
	}
	held = false
	releaseAfterHoldFor.Stop()
	debug.SetMemoryLimit(prevLimit)
	debug.SetGCPercent(prevPercent)
}
