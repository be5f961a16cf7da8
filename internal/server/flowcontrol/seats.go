package flowcontrol

import (
	"math"
	"net/url"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

// Upstream's work estimator constants (k8s.io/apiserver
// pkg/util/flowcontrol/request/config.go).
const (
	minimumSeats            = 1
	maximumListSeats        = 10
	maximumMutatingSeats    = 10
	objectsPerSeat          = 100.0
	watchesPerSeat          = 10.0
	eventAdditionalDuration = 5 * time.Millisecond
)

// WorkEstimate is how much of a priority level's concurrency a request
// takes: InitialSeats while it executes, then FinalSeats for
// AdditionalLatency (the watch notifications a write causes).
type WorkEstimate struct {
	InitialSeats      int
	FinalSeats        int
	AdditionalLatency time.Duration
}

// MaxSeats is the most seats the request holds at any time.
func (w WorkEstimate) MaxSeats() int { return max(w.InitialSeats, w.FinalSeats) }

// ObjectCountFunc returns the number of stored objects of a resource, as
// the storage last counted them; false when not counted.
type ObjectCountFunc func(gr schema.GroupResource) (int64, bool)

// estimateWork sizes a request as upstream's work estimator does: lists
// (and watches that start with a list) by their estimated object count,
// writes by the watches they will notify, everything else one seat.
// maxSeats is the priority level's cap (0: none beyond the defaults).
func (d *Dispatcher) estimateWork(ri *request.RequestInfo, query string, maxSeats int) WorkEstimate {
	switch ri.Verb {
	case "list", "watch":
		return WorkEstimate{InitialSeats: d.listSeats(ri, query, maxSeats)}
	case "create", "update", "patch", "delete":
		return d.mutatingWork(ri, maxSeats)
	}
	return WorkEstimate{InitialSeats: minimumSeats}
}

// listSeats is ceil(objects/100) within [1, 10] (and the level's cap).
// A watch counts as a list only when it starts by sending the current
// state (sendInitialEvents=true, or a legacy watch without a
// resourceVersion or from "0"). Unknown resources take the minimum, as
// upstream does for a resource its object count tracker does not know.
func (d *Dispatcher) listSeats(ri *request.RequestInfo, rawQuery string, maxSeats int) int {
	if maxSeats <= 0 || maxSeats > maximumListSeats {
		maxSeats = maximumListSeats
	}
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return maxSeats
	}
	rv := q.Get("resourceVersion")
	if ri.Verb == "watch" && q.Get("sendInitialEvents") != "true" && rv != "" && rv != "0" {
		return minimumSeats
	}
	if ri.Name != "" {
		return minimumSeats
	}
	if d.objectCount == nil {
		return minimumSeats
	}
	count, ok := d.objectCount(schema.GroupResource{Group: ri.APIGroup, Resource: ri.Resource})
	if !ok {
		return minimumSeats
	}
	objects := count
	// Served from the watch cache (watches, resourceVersion "0" or a
	// consistent read), every stored object is looked at; from storage a
	// page costs twice its size, a selector the whole set plus the page.
	fromStorage := ri.Verb == "list" && (q.Get("resourceVersionMatch") == "Exact" || q.Get("continue") != "")
	if fromStorage {
		limit := count
		if l := parseLimit(q.Get("limit")); l > 0 && l < count {
			limit = l
		}
		if q.Get("labelSelector") != "" || q.Get("fieldSelector") != "" {
			objects = count + limit
		} else {
			objects = 2 * limit
		}
	}
	seats := int(math.Ceil(float64(objects) / objectsPerSeat))
	return min(max(seats, minimumSeats), maxSeats)
}

func parseLimit(s string) int64 {
	var n int64
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0
		}
		n = n*10 + int64(s[i]-'0')
		if n > math.MaxInt32 {
			return n
		}
	}
	return n
}

// mutatingWork: one seat while executing, then one seat per ten watches
// the write notifies, held for 5ms per event, as upstream (the total work
// kept when the seats are capped).
func (d *Dispatcher) mutatingWork(ri *request.RequestInfo, maxSeats int) WorkEstimate {
	watches := d.watches.interested(ri)
	if watches == 0 {
		return WorkEstimate{InitialSeats: minimumSeats}
	}
	if maxSeats <= 0 || maxSeats > maximumMutatingSeats {
		maxSeats = maximumMutatingSeats
	}
	final := int(math.Ceil(float64(watches) / watchesPerSeat))
	work := float64(final) * eventAdditionalDuration.Seconds()
	if final > maxSeats {
		final = maxSeats
	}
	latency := time.Duration(work / float64(final) * float64(time.Second))
	return WorkEstimate{InitialSeats: minimumSeats, FinalSeats: final, AdditionalLatency: latency}
}

// watchTracker counts the open watches by resource and namespace, so a
// write can be charged for the notifications it causes.
type watchTracker struct {
	mu sync.Mutex
	// counts[gr][namespace]; "" is cluster-wide (all namespaces).
	counts map[schema.GroupResource]map[string]int
}

func newWatchTracker() *watchTracker {
	return &watchTracker{counts: map[schema.GroupResource]map[string]int{}}
}

// register notes an open watch; the returned func forgets it.
func (t *watchTracker) register(ri *request.RequestInfo) func() {
	if ri == nil || !ri.IsResourceRequest || ri.Verb != "watch" {
		return func() {}
	}
	gr := schema.GroupResource{Group: ri.APIGroup, Resource: ri.Resource}
	ns := ri.Namespace
	t.mu.Lock()
	byNS := t.counts[gr]
	if byNS == nil {
		byNS = map[string]int{}
		t.counts[gr] = byNS
	}
	byNS[ns]++
	t.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			t.mu.Lock()
			defer t.mu.Unlock()
			if byNS[ns]--; byNS[ns] <= 0 {
				delete(byNS, ns)
			}
			if len(byNS) == 0 {
				delete(t.counts, gr)
			}
		})
	}
}

// interested is the number of watches a write of ri's object notifies:
// the cluster-wide ones plus those of its namespace. Upstream also tells
// watches of one object by name apart; here a watch of one object counts
// like one of its namespace.
func (t *watchTracker) interested(ri *request.RequestInfo) int {
	if !ri.IsResourceRequest {
		return 0
	}
	gr := schema.GroupResource{Group: ri.APIGroup, Resource: ri.Resource}
	t.mu.Lock()
	defer t.mu.Unlock()
	byNS := t.counts[gr]
	if byNS == nil {
		return 0
	}
	n := byNS[""]
	if ri.Namespace != "" {
		n += byNS[ri.Namespace]
	}
	return n
}
