package inithold

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestReleaseRestores: the hold turns collection off under a limit, and
// Release puts back what the process had, once.
func TestReleaseRestores(t *testing.T) {
	Release() // the init's hold, if GOGC was unset
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))

	hold()
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Errorf("while held the GC percent is %d, want -1 (off)", got)
	}
	if got := debug.SetMemoryLimit(-1); got != holdLimit {
		t.Errorf("while held the memory limit is %d, want %d", got, holdLimit)
	}
	Release()
	if got := debug.SetGCPercent(-1); got != 100 {
		t.Errorf("after Release the GC percent is %d, want 100 back", got)
	}
	debug.SetGCPercent(100)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("after Release the memory limit is %d, want it back", got)
	}
	debug.SetGCPercent(70)
	Release()
	if got := debug.SetGCPercent(-1); got != 70 {
		t.Errorf("a second Release changed the GC percent to %d", got)
	}
	debug.SetGCPercent(100)

	// A lower limit the process already had stays the cap.
	debug.SetMemoryLimit(64 << 20)
	hold()
	if got := debug.SetMemoryLimit(-1); got != 64<<20 {
		t.Errorf("held under a 64 MiB limit: limit %d, want 64 MiB kept", got)
	}
	Release()
}
