package podcontrol

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/clock"
)

// ExpectationsTimeout is how long a controller waits for its own creates
// and deletes to reach its informer before it acts again anyway (a lost
// watch event must not wedge it), upstream's five minutes.
const ExpectationsTimeout = 5 * time.Minute

// Expectations records, per controller key, how many creates and which
// deletes the controller issued and its informer has not observed yet:
// upstream's UIDTrackingControllerExpectations. Until they are observed
// (or expire) the controller does not act on its stale cache again.
type Expectations struct {
	clock clock.PassiveClock
	mu    sync.Mutex
	items map[string]*expectation
}

type expectation struct {
	adds, dels int64
	deleting   sets.Set[string] // keys of the objects expected to go
	timestamp  time.Time
}

// NewExpectations returns empty expectations on clk.
func NewExpectations(clk clock.PassiveClock) *Expectations {
	return &Expectations{clock: clk, items: map[string]*expectation{}}
}

// Satisfied says whether the controller of key may act: nothing is
// expected, everything was observed, or the expectations expired.
func (e *Expectations) Satisfied(key string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	x, ok := e.items[key]
	if !ok {
		return true
	}
	if x.adds <= 0 && x.dels <= 0 {
		return true
	}
	return e.clock.Since(x.timestamp) > ExpectationsTimeout
}

// ExpectCreations replaces key's expectations with n creates.
func (e *Expectations) ExpectCreations(key string, n int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.items[key] = &expectation{adds: int64(n), deleting: sets.New[string](), timestamp: e.clock.Now()}
}

// ExpectDeletions replaces key's expectations with the deletes of the
// objects named by objKeys (namespace/name).
func (e *Expectations) ExpectDeletions(key string, objKeys []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := sets.New(objKeys...)
	e.items[key] = &expectation{dels: int64(s.Len()), deleting: s, timestamp: e.clock.Now()}
}

// ExpectCounts replaces key's expectations with adds creates and dels
// deletes counted but not tracked per object: upstream's
// ControllerExpectations, which the DaemonSet and Job controllers use.
func (e *Expectations) ExpectCounts(key string, adds, dels int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.items[key] = &expectation{adds: int64(adds), dels: int64(dels), deleting: sets.New[string](), timestamp: e.clock.Now()}
}

// Observed lowers key's expected creates by adds and deletes by dels,
// for expectations set by ExpectCounts.
func (e *Expectations) Observed(key string, adds, dels int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if x, ok := e.items[key]; ok {
		x.adds -= int64(adds)
		x.dels -= int64(dels)
	}
}

// CreationObserved lowers key's expected creates by one: the informer
// saw one, or a create that will never be seen failed or was skipped.
func (e *Expectations) CreationObserved(key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if x, ok := e.items[key]; ok {
		x.adds--
	}
}

// DeletionObserved lowers key's expected deletes once per object: a
// deletion seen first as a deletionTimestamp and then as a delete
// counts once.
func (e *Expectations) DeletionObserved(key, objKey string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if x, ok := e.items[key]; ok && x.deleting.Has(objKey) {
		x.deleting.Delete(objKey)
		x.dels--
	}
}

// Delete forgets key (its object is gone).
func (e *Expectations) Delete(key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.items, key)
}

// Pending returns key's outstanding creates and deletes, for tests and
// logs.
func (e *Expectations) Pending(key string) (adds, dels int64, ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	x, ok := e.items[key]
	if !ok {
		return 0, 0, false
	}
	return x.adds, x.dels, true
}
