package flowcontrol

import (
	"math"
	"testing"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/registry/flowcontrol/bootstrap"
)

func TestComputeLimits(t *testing.T) {
	low := limitedLevel("workload-low", 100, nil)
	low.Spec.Limited.LendablePercent = ptr.To[int32](90)
	global := limitedLevel("global-default", 20, nil)
	global.Spec.Limited.LendablePercent = ptr.To[int32](50)
	global.Spec.Limited.BorrowingLimitPercent = ptr.To[int32](25)
	levels := append(bootstrap.MandatoryPriorityLevels(), low, global)
	// Shares 0 (exempt) + 5 + 100 + 20 = 125 of 600 seats.
	got := computeLimits(600, levels)
	for name, want := range map[string]levelLimits{
		"exempt":         {nominal: 0, lendable: 0, borrowing: -1},
		"catch-all":      {nominal: 24, lendable: 0, borrowing: -1},
		"workload-low":   {nominal: 480, lendable: 432, borrowing: -1},
		"global-default": {nominal: 96, lendable: 48, borrowing: 24},
	} {
		if got[name] != want {
			t.Errorf("%s: %+v, want %+v", name, got[name], want)
		}
	}
	// Small servers round up: every level with shares gets a seat.
	if got := computeLimits(6, levels)["catch-all"].nominal; got != 1 {
		t.Errorf("catch-all of 6 seats: %d, want ceil(6*5/125) = 1", got)
	}
	if got := maxSeatsFor(24, 6); got != 4 {
		t.Errorf("maxSeats(24, hand 6) = %d, want min(ceil(3.6), 4) = 4", got)
	}
	if got := maxSeatsFor(2, 6); got != 1 {
		t.Errorf("maxSeats(2, hand 6) = %d, want 1", got)
	}
}

func TestAllocate(t *testing.T) {
	for _, tc := range []struct {
		name     string
		capacity float64
		items    []allocItem
		want     []float64
	}{
		{"in proportion to targets", 10, []allocItem{{1, 10, 8}, {1, 10, 2}}, []float64{8, 2}},
		{"lower bound holds", 10, []allocItem{{5, 10, 1}, {1, 10, 9}}, []float64{5, 5}},
		{"upper bounds fall short", 10, []allocItem{{0, 3, 1}, {0, 4, 1}}, []float64{3, 4}},
		{"lower bounds exceed", 4, []allocItem{{3, 5, 9}, {2, 5, 9}}, []float64{3, 2}},
	} {
		got := allocate(tc.capacity, tc.items)
		for i := range got {
			if math.Abs(got[i]-tc.want[i]) > 1e-6 {
				t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
				break
			}
		}
	}
}

// TestBorrowing: a busy level borrows the seats an idle one lends.
func TestBorrowing(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	busy := limitedLevel("busy", 50, nil)
	idle := limitedLevel("idle", 50, nil)
	idle.Spec.Limited.LendablePercent = ptr.To[int32](100)
	d := New(Options{ServerConcurrencyLimit: 20, Clock: clk})
	d.Update(nil, []*flowcontrolv1.PriorityLevelConfiguration{busy, idle})
	// catch-all (5 shares) is part of the sum: 20*50/105 -> 10 each.
	ls := d.levels["busy"]
	if ls.limits.nominal != 10 || d.levels["idle"].currentCL != 5 {
		t.Fatalf("busy nominal %d, idle initial %d", ls.limits.nominal, d.levels["idle"].currentCL)
	}
	// Keep busy's demand at 16 seats for a period.
	ls.qs.mu.Lock()
	ls.qs.demand.advance(clk.Now(), 16)
	ls.qs.mu.Unlock()
	clk.Step(borrowingAdjustmentPeriod)
	d.rebalance()
	if got := d.levels["busy"].currentCL; got <= 10 {
		t.Fatalf("busy level limit %d after demanding 16: it borrowed nothing", got)
	}
	if got := d.levels["idle"].currentCL; got != 0 {
		t.Fatalf("idle level keeps %d seats, want 0 (all lendable, no demand)", got)
	}
}
