package flowcontrol

import (
	"sync"
	"time"
)

// maxRetryAfter caps Retry-After, in seconds, as upstream.
const maxRetryAfter = 32

// droppedRequests adapts each priority level's Retry-After to how many
// of its requests were rejected lately, the way upstream's tracker mimics
// TCP congestion control: it starts at 1s, doubles (at most once per
// Retry-After period) while at least 3×RetryAfter requests were rejected
// during the last RetryAfter seconds, and shrinks by one second when fewer
// than RetryAfter were.
type droppedRequests struct {
	mu     sync.Mutex
	levels map[string]*droppedStats
}

type droppedStats struct {
	retryAfter  int64
	lastUpdate  int64
	currentSec  int64
	currentDrop int64
	history     []secondCount // complete seconds, oldest first
}

type secondCount struct{ sec, drops int64 }

func newDroppedRequests() *droppedRequests {
	return &droppedRequests{levels: map[string]*droppedStats{}}
}

func (t *droppedRequests) retryAfter(level string) int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s := t.levels[level]; s != nil {
		return s.retryAfter
	}
	return 1
}

// record notes a rejection of level at now.
func (t *droppedRequests) record(level string, now time.Time) {
	sec := now.Unix()
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.levels[level]
	if s == nil {
		s = &droppedStats{retryAfter: 1}
		t.levels[level] = s
	}
	if s.currentSec == sec {
		s.currentDrop++
		return
	}
	if s.currentDrop > 0 {
		s.history = append(s.history, secondCount{s.currentSec, s.currentDrop})
	}
	keep := min(2*s.retryAfter, maxRetryAfter)
	i := 0
	for i < len(s.history) && sec-s.history[i].sec > keep {
		i++
	}
	s.history = s.history[i:]
	s.currentSec, s.currentDrop = sec, 1
	s.update(sec)
}

// update reconsiders Retry-After when a new second starts, from the
// rejections of the previous RetryAfter seconds.
func (s *droppedStats) update(sec int64) {
	var drops int64
	for i := len(s.history) - 1; i >= 0; i-- {
		h := s.history[i]
		if sec-h.sec > s.retryAfter {
			break
		}
		if h.sec < sec {
			drops += h.drops
		}
	}
	switch {
	case sec-s.lastUpdate >= s.retryAfter && drops >= 3*s.retryAfter:
		s.retryAfter = min(2*s.retryAfter, maxRetryAfter)
		s.lastUpdate = sec
	case drops < s.retryAfter && s.retryAfter > 1:
		s.retryAfter--
	}
}
