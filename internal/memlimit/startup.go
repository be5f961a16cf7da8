package memlimit

import (
	"log/slog"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/kapi-dev/kapi/internal/binpages"
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

// releaseBinaryPages hands the binary's pages that only the start touched
// back to the kernel (package binpages): most of an idle server's
// file-backed resident set.
var releaseBinaryPages = func(logger *slog.Logger) {
	advised, err := binpages.Release()
	logger.Debug("released the binary's pages the start touched", "mappedBytes", advised, "err", err)
}

// ReleaseInitHold ends the hold on collections the kapi command takes
// from its first moments (package inithold, which only the command
// imports and which sets this): the start-up collector takes over, or,
// for a command that starts no API server, the defaults come back.
var ReleaseInitHold = func() {}

// StartupCollector holds collections back until the returned ready is
// called, then puts the previous target back and returns the start's
// garbage to the operating system in the background, then again once the
// controllers have settled (settleDelay), with the binary's pages the
// start touched, so an idle server's footprint is what it holds, not what
// it went through. When bounded, a soft memory limit (Setting.Bounds)
// caps the heap meanwhile and the collector is off until the heap reaches
// it: a start to ready allocates a few tens of MB, and the one or two
// collections at startupGCPercent took a sixth of its CPU, one of only two
// cores on a small machine. Unbounded, the target is startupGCPercent. A
// GOGC environment variable is the operator's choice and is left in force
// (the settled return still happens). ready may be called more than once;
// only the first call counts.
func StartupCollector(bounded bool, logger *slog.Logger) (ready func()) {
	ReleaseInitHold()
	operatorGOGC := os.Getenv("GOGC") != ""
	percent := startupGCPercent
	if bounded {
		percent = -1
	}
	prev := 0
	if !operatorGOGC {
		prev = debug.SetGCPercent(percent)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			if !operatorGOGC {
				debug.SetGCPercent(prev)
				go freeOSMemory()
			}
			SettleAfterStart(logger)
		})
	}
}

// SettleAfterStart returns the start's garbage and the binary's pages the
// start touched to the operating system settleDelay from now, once a
// server that has just become ready has settled.
func SettleAfterStart(logger *slog.Logger) {
	time.AfterFunc(settleDelay, func() {
		freeOSMemory()
		releaseBinaryPages(logger)
	})
}
