package job

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	clocktesting "k8s.io/utils/clock/testing"
)

// TestIntervals pins the completedIndexes format: sorted, merged ranges,
// indexes past completions and malformed parts dropped when parsing.
func TestIntervals(t *testing.T) {
	for _, tc := range []struct {
		in   string
		add  []int
		want string
	}{
		{"", []int{3, 1, 2}, "1-3"},
		{"1,3-5", []int{2}, "1-5"},
		{"0,2", []int{7}, "0,2,7"},
		{"x,4-2,1", nil, "1"},
		{"5-9", []int{0}, "0,5-7"},
	} {
		got := parseIndexes(tc.in, 8).with(tc.add)
		if got.String() != tc.want {
			t.Errorf("%q + %v = %q, want %q", tc.in, tc.add, got, tc.want)
		}
	}
}

// TestBackoffRemaining: 10s after one failure, doubling per failure,
// capped at 10 minutes; a success resets the count.
func TestBackoffRemaining(t *testing.T) {
	clk := clocktesting.NewFakeClock(t0)
	failed := func() *corev1.Pod { return &corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodFailed}} }
	r := backoffRecord{}.next(clk, nil, []*corev1.Pod{failed()})
	if got := r.remaining(clk); got != 10*time.Second {
		t.Fatalf("one failure: %v", got)
	}
	r = r.next(clk, nil, []*corev1.Pod{failed(), failed()})
	if got := r.remaining(clk); got != 40*time.Second {
		t.Fatalf("three failures: %v", got)
	}
	r = r.next(clk, nil, make([]*corev1.Pod, 0))
	for range 10 {
		r = r.next(clk, nil, []*corev1.Pod{failed()})
	}
	if got := r.remaining(clk); got != 10*time.Minute {
		t.Fatalf("many failures: %v", got)
	}
	clk.Step(time.Second)
	r = r.next(clk, []*corev1.Pod{{Status: corev1.PodStatus{Phase: corev1.PodSucceeded}}}, nil)
	if got := r.remaining(clk); got != 0 {
		t.Fatalf("after a success: %v", got)
	}
}

// TestIndexedGenerateName: a long Job name is shortened, never the index.
func TestIndexedGenerateName(t *testing.T) {
	long := strings.Repeat("a", 60)
	for _, tc := range []struct {
		job  string
		ix   int
		want string
	}{
		{"pi", 3, "pi-3-"},
		{long, 12, strings.Repeat("a", 54) + "-12-"},
	} {
		if got := indexedGenerateName(tc.job, tc.ix); got != tc.want {
			t.Errorf("%q, %d: %q, want %q", tc.job, tc.ix, got, tc.want)
		}
	}
}
