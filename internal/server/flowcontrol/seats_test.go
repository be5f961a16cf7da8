package flowcontrol

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

func TestEstimateWork(t *testing.T) {
	counts := map[schema.GroupResource]int64{{Resource: "pods"}: 450, {Group: "apps", Resource: "deployments"}: 5000}
	d := New(Options{ServerConcurrencyLimit: 600, ObjectCount: func(gr schema.GroupResource) (int64, bool) {
		n, ok := counts[gr]
		return n, ok
	}})
	pods := func(verb, name string) *request.RequestInfo {
		return &request.RequestInfo{IsResourceRequest: true, Verb: verb, Resource: "pods", Namespace: "a", Name: name}
	}
	for _, tc := range []struct {
		name     string
		info     *request.RequestInfo
		query    string
		maxSeats int
		want     int
	}{
		{"get is one seat", pods("get", "x"), "", 0, 1},
		{"list from cache: ceil(450/100)", pods("list", ""), "", 0, 5},
		{"paged list from storage: 2*limit", pods("list", ""), "limit=50&continue=abc", 0, 1},
		{"selector list from storage: all plus page", pods("list", ""), "limit=100&resourceVersionMatch=Exact&resourceVersion=5&labelSelector=a%3Db", 0, 6},
		{"capped at 10", &request.RequestInfo{IsResourceRequest: true, Verb: "list", APIGroup: "apps", Resource: "deployments"}, "", 0, 10},
		{"capped by the level", pods("list", ""), "", 3, 3},
		{"unknown resource: minimum", &request.RequestInfo{IsResourceRequest: true, Verb: "list", Resource: "secrets"}, "", 0, 1},
		{"legacy watch lists first", pods("watch", ""), "watch=true", 0, 5},
		{"watch with initial events", pods("watch", ""), "resourceVersion=10&sendInitialEvents=true", 0, 5},
		{"watch from a resourceVersion", pods("watch", ""), "resourceVersion=10", 0, 1},
	} {
		if got := d.estimateWork(tc.info, tc.query, tc.maxSeats); got.InitialSeats != tc.want || got.FinalSeats != 0 {
			t.Errorf("%s: %+v, want %d initial seats", tc.name, got, tc.want)
		}
	}

	// Writes pay for the watches they notify: 25 watches -> 3 final
	// seats for 5ms; cluster-wide and same-namespace watches count.
	var forget []func()
	for range 20 {
		forget = append(forget, d.watches.register(&request.RequestInfo{IsResourceRequest: true, Verb: "watch", Resource: "pods"}))
	}
	for range 5 {
		forget = append(forget, d.watches.register(pods("watch", "")))
	}
	forget = append(forget, d.watches.register(&request.RequestInfo{IsResourceRequest: true, Verb: "watch", Resource: "pods", Namespace: "b"}))
	got := d.estimateWork(pods("create", ""), "", 0)
	if got != (WorkEstimate{InitialSeats: 1, FinalSeats: 3, AdditionalLatency: 5 * time.Millisecond}) {
		t.Errorf("create with 25 interested watches: %+v", got)
	}
	for _, f := range forget {
		f()
	}
	if got := d.estimateWork(pods("create", ""), "", 0); got.FinalSeats != 0 {
		t.Errorf("create after the watches ended: %+v", got)
	}
}
