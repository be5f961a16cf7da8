package flowcontrol

import (
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// DebugPaths are upstream's APF dump endpoints; like any non-resource URL
// they are authorized by path.
const (
	DebugPriorityLevelsPath = "/debug/api_priority_and_fairness/dump_priority_levels"
	DebugQueuesPath         = "/debug/api_priority_and_fairness/dump_queues"
	DebugRequestsPath       = "/debug/api_priority_and_fairness/dump_requests"
)

// DebugHandlers returns the dump handlers by path.
func (d *Dispatcher) DebugHandlers() map[string]http.Handler {
	return map[string]http.Handler{
		DebugPriorityLevelsPath: http.HandlerFunc(d.dumpPriorityLevels),
		DebugQueuesPath:         http.HandlerFunc(d.dumpQueues),
		DebugRequestsPath:       http.HandlerFunc(d.dumpRequests),
	}
}

// sortedLevels returns the levels by name, under d.mu.
func (d *Dispatcher) sortedLevelsLocked() []*levelState {
	out := make([]*levelState, 0, len(d.levels))
	for _, ls := range d.levels {
		out = append(out, ls)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// The dumps are comma-and-tab separated columns, aligned by a tabwriter,
// with upstream's headers.
func row(w io.Writer, cols ...string) { fmt.Fprint(w, strings.Join(cols, ",\t")) }

func newTabWriter(w http.ResponseWriter) *tabwriter.Writer {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	return tabwriter.NewWriter(w, 8, 0, 1, ' ', 0)
}

func (d *Dispatcher) dumpPriorityLevels(w http.ResponseWriter, _ *http.Request) {
	d.mu.Lock()
	defer d.mu.Unlock()
	tw := newTabWriter(w)
	row(tw, "PriorityLevelName", "ActiveQueues", "IsIdle", "IsQuiescing", "WaitingRequests", "ExecutingRequests",
		"DispatchedRequests", "RejectedRequests", "TimedoutRequests", "CancelledRequests")
	fmt.Fprintln(tw)
	for _, ls := range d.sortedLevelsLocked() {
		qs := ls.qs
		qs.mu.Lock()
		active := 0
		for _, q := range qs.queues {
			if len(q.waiting) > 0 {
				active++
			}
		}
		row(tw, ls.name, strconv.Itoa(active), strconv.FormatBool(qs.waiting == 0 && qs.executing == 0),
			strconv.FormatBool(ls.quiescing), strconv.Itoa(qs.waiting), strconv.Itoa(qs.executing),
			strconv.Itoa(qs.dispatched), strconv.Itoa(qs.rejected), strconv.Itoa(qs.timedOut), strconv.Itoa(qs.cancelledReqs))
		qs.mu.Unlock()
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

func (d *Dispatcher) dumpQueues(w http.ResponseWriter, _ *http.Request) {
	d.mu.Lock()
	defer d.mu.Unlock()
	tw := newTabWriter(w)
	row(tw, "PriorityLevelName", "Index", "PendingRequests", "ExecutingRequests", "SeatsInUse",
		"NextDispatchR", "InitialSeatsSum", "MaxSeatsSum", "TotalWorkSum")
	fmt.Fprintln(tw)
	for _, ls := range d.sortedLevelsLocked() {
		qs := ls.qs
		qs.mu.Lock()
		for i, q := range qs.queues {
			initial, maxSeats, work := 0, 0, 0.0
			for _, r := range q.waiting {
				initial += r.work.InitialSeats
				maxSeats += r.work.MaxSeats()
				work += r.totalWork()
			}
			row(tw, ls.name, strconv.Itoa(i), strconv.Itoa(len(q.waiting)), strconv.Itoa(len(q.executing)),
				strconv.Itoa(q.seatsInUse), formatSeatSeconds(q.nextDispatchR), strconv.Itoa(initial),
				strconv.Itoa(maxSeats), formatSeatSeconds(work))
			fmt.Fprintln(tw)
		}
		qs.mu.Unlock()
	}
	tw.Flush()
}

// formatSeatSeconds prints virtual time as upstream's SeatSeconds do.
func formatSeatSeconds(ss float64) string { return fmt.Sprintf("%.8fss", ss) }

func (d *Dispatcher) dumpRequests(w http.ResponseWriter, r *http.Request) {
	details := r.URL.Query().Get("includeRequestDetails") != ""
	d.mu.Lock()
	defer d.mu.Unlock()
	tw := newTabWriter(w)
	row(tw, "PriorityLevelName", "FlowSchemaName", "QueueIndex", "RequestIndexInQueue", "FlowDistingsher",
		"ArriveTime", "InitialSeats", "FinalSeats", "AdditionalLatency", "StartTime")
	if details {
		fmt.Fprint(tw, ",\t")
		row(tw, "UserName", "Verb", "APIPath", "Namespace", "Name", "APIVersion", "Resource", "SubResource")
	}
	fmt.Fprintln(tw)
	for _, ls := range d.sortedLevelsLocked() {
		qs := ls.qs
		qs.mu.Lock()
		for qi, q := range qs.queues {
			for ri, req := range q.waiting {
				dumpRequest(tw, ls.name, qi, ri, req, details)
			}
			for _, req := range sortedByStart(q.executing) {
				dumpRequest(tw, ls.name, qi, -1, req, details)
			}
		}
		for _, req := range sortedByStart(qs.queueless) {
			dumpRequest(tw, ls.name, -1, -1, req, details)
		}
		qs.mu.Unlock()
	}
	tw.Flush()
}

func sortedByStart(m map[*queuedRequest]struct{}) []*queuedRequest {
	out := make([]*queuedRequest, 0, len(m))
	for r := range m {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].start.Before(out[j].start) })
	return out
}

func dumpRequest(w io.Writer, level string, qi, ri int, r *queuedRequest, details bool) {
	row(w, level, r.schema, strconv.Itoa(qi), strconv.Itoa(ri), r.flow,
		r.arrive.UTC().Format(time.RFC3339Nano), strconv.Itoa(r.work.InitialSeats), strconv.Itoa(r.work.FinalSeats),
		r.work.AdditionalLatency.String(), r.start.UTC().Format(time.RFC3339Nano))
	if details {
		fmt.Fprint(w, ",\t")
		var userName string
		if r.digest.User != nil {
			userName = r.digest.User.GetName()
		}
		ri := r.digest.RequestInfo
		if ri == nil {
			row(w, userName, "", "", "", "", "", "", "")
		} else {
			row(w, userName, ri.Verb, ri.Path, ri.Namespace, ri.Name,
				schema.GroupVersion{Group: ri.APIGroup, Version: ri.APIVersion}.String(), ri.Resource, ri.Subresource)
		}
	}
	fmt.Fprintln(w)
}
