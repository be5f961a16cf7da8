package flowcontrol

import (
	"math"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
)

// Upstream's borrowing constants (apf_controller.go).
const (
	borrowingAdjustmentPeriod      = 10 * time.Second
	seatDemandSmoothingCoefficient = 0.977
	// maxSeatsFraction caps a request's seats at 15% of its level's
	// nominal limit (and at nominal/handSize).
	maxSeatsFraction = 0.15
)

// levelLimits are a priority level's shares of the server's concurrency.
type levelLimits struct {
	nominal   int // NominalCL = ceil(serverCL * NCS / sum NCS)
	lendable  int // round(nominal * lendablePercent / 100)
	borrowing int // round(nominal * borrowingLimitPercent / 100); -1 unlimited
}

// minCL and maxCL bound the level's current limit while borrowing.
func (l levelLimits) minCL() int { return l.nominal - l.lendable }
func (l levelLimits) maxCL(serverCL int) int {
	if l.borrowing < 0 {
		return max(serverCL, l.nominal)
	}
	return l.nominal + l.borrowing
}

// shares reads a level's nominal shares, lendable and borrowing-limit
// percents (defaulted objects; nil fields count as upstream's defaults).
func shares(pl *flowcontrolv1.PriorityLevelConfiguration) (ncs, lendable int, borrowing int) {
	borrowing = -1
	switch {
	case pl.Spec.Limited != nil:
		l := pl.Spec.Limited
		ncs = 30
		if l.NominalConcurrencyShares != nil {
			ncs = int(*l.NominalConcurrencyShares)
		}
		if l.LendablePercent != nil {
			lendable = int(*l.LendablePercent)
		}
		if l.BorrowingLimitPercent != nil {
			borrowing = int(*l.BorrowingLimitPercent)
		}
	case pl.Spec.Exempt != nil:
		if pl.Spec.Exempt.NominalConcurrencyShares != nil {
			ncs = int(*pl.Spec.Exempt.NominalConcurrencyShares)
		}
		if pl.Spec.Exempt.LendablePercent != nil {
			lendable = int(*pl.Spec.Exempt.LendablePercent)
		}
	}
	return ncs, lendable, borrowing
}

// computeLimits divides serverCL among the levels by their nominal
// concurrency shares, as upstream: every level, exempt ones included,
// takes part in the sum.
func computeLimits(serverCL int, pls []*flowcontrolv1.PriorityLevelConfiguration) map[string]levelLimits {
	sum := 0
	for _, pl := range pls {
		ncs, _, _ := shares(pl)
		sum += ncs
	}
	out := make(map[string]levelLimits, len(pls))
	for _, pl := range pls {
		ncs, lendPct, borrowPct := shares(pl)
		var l levelLimits
		if sum > 0 {
			l.nominal = int(math.Ceil(float64(serverCL) * float64(ncs) / float64(sum)))
		}
		l.lendable = int(math.Round(float64(l.nominal) * float64(lendPct) / 100))
		l.borrowing = -1
		if borrowPct >= 0 {
			l.borrowing = int(math.Round(float64(l.nominal) * float64(borrowPct) / 100))
		}
		out[pl.Name] = l
	}
	return out
}

// maxSeatsFor is the most seats one request of a queuing level may take:
// max(1, min(ceil(15% of nominal), nominal/handSize)).
func maxSeatsFor(nominal, handSize int) int {
	if handSize <= 0 {
		return 0
	}
	return max(1, min(int(math.Ceil(float64(nominal)*maxSeatsFraction)), nominal/handSize))
}

// demandStats integrates a level's seat demand (seats in use plus seats
// waiting) over an adjustment period: its time-weighted average, standard
// deviation and high watermark, which upstream's borrowing feeds on.
type demandStats struct {
	last          time.Time
	current       int
	start         time.Time
	integral      float64
	integralSq    float64
	highWatermark int
	smoothed      float64
}

func (s *demandStats) advance(now time.Time, current int) {
	if dt := now.Sub(s.last).Seconds(); dt > 0 {
		c := float64(s.current)
		s.integral += c * dt
		s.integralSq += c * c * dt
		s.last = now
	}
	s.current = current
	s.highWatermark = max(s.highWatermark, current)
}

// closePeriod ends an adjustment period: it returns the period's high
// watermark and the smoothed envelope (average plus standard deviation,
// decaying by at most 0.977 per period, as upstream), and starts the next.
func (s *demandStats) closePeriod(now time.Time) (highWatermark int, smoothed float64) {
	s.advance(now, s.current)
	avg, std := float64(s.current), 0.0
	if span := now.Sub(s.start).Seconds(); span > 0 && !s.start.IsZero() {
		avg = s.integral / span
		std = math.Sqrt(max(0, s.integralSq/span-avg*avg))
	}
	env := avg + std
	s.smoothed = max(env, seatDemandSmoothingCoefficient*s.smoothed+(1-seatDemandSmoothingCoefficient)*env)
	highWatermark = s.highWatermark
	s.start, s.integral, s.integralSq, s.highWatermark = now, 0, 0, s.current
	return highWatermark, s.smoothed
}

// allocItem is one level in the borrowing problem.
type allocItem struct {
	lower, upper, target float64
}

// allocate shares capacity among the items as upstream's fair
// allocation: find the fair fraction f so that the items' targets times f,
// each clamped to its bounds, add up to capacity. When even the lower
// bounds exceed it every item gets its lower bound; when the upper bounds
// fall short, its upper bound.
func allocate(capacity float64, items []allocItem) []float64 {
	out := make([]float64, len(items))
	var lowSum, highSum float64
	for _, it := range items {
		lowSum += it.lower
		highSum += it.upper
	}
	clampAll := func(f float64) float64 {
		sum := 0.0
		for i, it := range items {
			out[i] = min(max(it.target*f, it.lower), it.upper)
			sum += out[i]
		}
		return sum
	}
	switch {
	case lowSum >= capacity:
		clampAll(0)
		return out
	case highSum <= capacity:
		for i, it := range items {
			out[i] = it.upper
		}
		return out
	}
	lo, hi := 0.0, 1.0
	for clampAll(hi) < capacity && hi < 1e12 {
		hi *= 2
	}
	for range 64 {
		mid := (lo + hi) / 2
		if clampAll(mid) < capacity {
			lo = mid
		} else {
			hi = mid
		}
	}
	clampAll(hi)
	return out
}
