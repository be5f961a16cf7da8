package kapitest

import (
	"runtime"
	"testing"
	"time"
)

func TestStartGCPercent(t *testing.T) {
	cases := []struct {
		live uint64
		want int
	}{
		{0, maxStartGCPercent},
		{8 << 20, maxStartGCPercent}, // 64 MB of headroom would be 800%: capped
		{32 << 20, 200},              // 64 MB above 32 MB
		{64 << 20, 100},              // the default already leaves it
		{640 << 20, 10},              // many servers: below the default, no raise
	}
	for _, tc := range cases {
		if got := startGCPercent(tc.live); got != tc.want {
			t.Errorf("startGCPercent(%d MB) = %d, want %d", tc.live>>20, got, tc.want)
		}
	}
}

// awaitGOGC collects until the target is want: the hold puts the old
// target back from a collection's cleanup, which runs after it.
func awaitGOGC(t *testing.T, want int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		if gogc, _ := collectorState(); gogc == want {
			return
		} else if time.Now().After(deadline) {
			t.Fatalf("GOGC is %d, want %d", gogc, want)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestHoldCollections(t *testing.T) {
	startCollector.mu.Lock()
	raisedBefore := startCollector.raised
	startCollector.mu.Unlock()
	if gogc, _ := collectorState(); gogc != 100 && !raisedBefore {
		t.Skipf("GOGC is %d: the hold leaves a chosen target alone", gogc)
	}
	awaitGOGC(t, 100)

	release := holdCollections()
	gogc, live := collectorState()
	if want := startGCPercent(live); want > 100 && gogc <= 100 {
		t.Fatalf("during a start GOGC is %d, want it raised (to about %d)", gogc, want)
	}
	raised := gogc
	second := holdCollections() // a second start in parallel
	release()
	if gogc, _ := collectorState(); gogc != raised {
		t.Fatalf("with a start still running GOGC is %d, want %d", gogc, raised)
	}
	second()
	awaitGOGC(t, 100)
}

func TestHoldCollectionsLeavesGOGCVariable(t *testing.T) {
	t.Setenv("GOGC", "100")
	awaitGOGC(t, 100)
	release := holdCollections()
	defer release()
	if gogc, _ := collectorState(); gogc != 100 {
		t.Fatalf("with GOGC set in the environment the hold changed the target to %d", gogc)
	}
}
