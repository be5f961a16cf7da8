package memlimit

import (
	"os"
	"runtime/debug"
	"sync"
	"time"
)

// startupGCPercent is the collector's target while a server starts. A
// start allocates several times its final live heap (schemes, handlers,
// the bootstrap objects, the first lists of every informer) and, at the
// default 100, collected that garbage a dozen times on the path to
// ready: a fifth of the start's CPU.
const startupGCPercent = 400

// settleDelay is how long after ready the start's garbage is returned a
// second time: the in-process controllers start once the server is ready
// and list everything they watch, garbage the first return came too early
// for (10 MB of an idle server's 104 MB RSS with all controllers).
var settleDelay = 3 * time.Second

// freeOSMemory returns the unused heap to the operating system.
var freeOSMemory = debug.FreeOSMemory

// StartupCollector lets the heap grow further between collections until
// the returned ready is called, then puts the previous target back and
// returns the start's garbage to the operating system in the background,
// then again once the controllers have settled (settleDelay), so an idle
// server's footprint is what it holds, not what it went through. A GOGC environment variable is the operator's choice and is
// left in force. The limit Start sets still bounds the heap meanwhile.
// ready may be called more than once; only the first call counts.
func StartupCollector() (ready func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	prev := debug.SetGCPercent(startupGCPercent)
	var once sync.Once
	return func() {
		once.Do(func() {
			debug.SetGCPercent(prev)
			go freeOSMemory()
			time.AfterFunc(settleDelay, freeOSMemory)
		})
	}
}
