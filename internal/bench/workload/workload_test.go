package workload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestAccountDelays(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	writes := map[string]time.Time{"a@1": at(0), "b@2": at(10), "c@3": at(20)}
	cases := []struct {
		name                                 string
		arrivals                             [][]arrival
		wantDelays                           []time.Duration
		wantReceived, wantNegative, wantLost int64
	}{
		{"no watchers", nil, nil, 0, 0, 0},
		{"all arrive", [][]arrival{
			{{"a@1", at(5)}, {"b@2", at(12)}, {"c@3", at(21)}},
			{{"a@1", at(1)}, {"b@2", at(30)}, {"c@3", at(20)}},
		}, []time.Duration{0, time.Millisecond, time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond}, 6, 0, 0},
		{"early event clamps to zero", [][]arrival{
			{{"a@1", at(-3)}, {"b@2", at(11)}, {"c@3", at(22)}},
		}, []time.Duration{0, time.Millisecond, 2 * time.Millisecond}, 3, 1, 0},
		{"lost, repeated and unknown events", [][]arrival{
			{{"a@1", at(4)}, {"a@1", at(9)}, {"x@9", at(9)}},
			{},
		}, []time.Duration{4 * time.Millisecond}, 1, 0, 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := accountDelays(writes, c.arrivals)
			if diff := cmp.Diff(c.wantDelays, d.samples.Sorted(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("delays (-want +got):\n%s", diff)
			}
			got := [3]int64{d.received, d.negative, d.lost}
			if want := [3]int64{c.wantReceived, c.wantNegative, c.wantLost}; got != want {
				t.Errorf("received, negative, lost = %v, want %v", got, want)
			}
		})
	}
}

func TestClassify(t *testing.T) {
	gr := schema.GroupResource{Resource: "configmaps"}
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"conflict", apierrors.NewConflict(gr, "cm-00001", errors.New("changed")), "409"},
		{"not found, wrapped", fmt.Errorf("get: %w", apierrors.NewNotFound(gr, "x")), "404"},
		{"forbidden", apierrors.NewForbidden(gr, "x", errors.New("no")), "403"},
		{"too many requests", apierrors.NewTooManyRequests("slow down", 1), "429"},
		{"deadline", fmt.Errorf("x: %w", context.DeadlineExceeded), "timeout"},
		{"canceled", context.Canceled, "canceled"},
		{"connection refused", errors.New("dial tcp 127.0.0.1:1: connect: connection refused"), "network"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Classify(c.err); got != c.want {
				t.Errorf("Classify(%v) = %q, want %q", c.err, got, c.want)
			}
		})
	}
}

func TestErrorCounts(t *testing.T) {
	var e ErrorCounts
	if e.Map() != nil || e.Total() != 0 || e.First() != nil {
		t.Fatalf("zero ErrorCounts not empty: %v %d %v", e.Map(), e.Total(), e.First())
	}
	first := apierrors.NewConflict(schema.GroupResource{Resource: "configmaps"}, "a", errors.New("x"))
	e.Add(nil)
	e.Add(first)
	e.Add(errors.New("network down"))
	e.Add(first)
	if diff := cmp.Diff(map[string]int64{"409": 2, "network": 1}, e.Map()); diff != "" {
		t.Errorf("Map (-want +got):\n%s", diff)
	}
	if e.Total() != 3 || e.First() != error(first) {
		t.Errorf("Total = %d, First = %v; want 3 and the conflict", e.Total(), e.First())
	}
}

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		name    string
		change  func(*Config)
		wantErr string
	}{
		{"defaults", func(*Config) {}, ""},
		{"zero objects", func(c *Config) { c.Objects = 0 }, "--objects"},
		{"negative workers", func(c *Config) { c.Workers = -1 }, "--workers"},
		{"empty objects ok", func(c *Config) { c.Size = 0 }, ""},
		{"negative size", func(c *Config) { c.Size = -1 }, "--size"},
		{"no watchers", func(c *Config) { c.Watchers = 0 }, "--watchers"},
		{"zero rate", func(c *Config) { c.Rate = 0 }, "--rate"},
		{"zero duration", func(c *Config) { c.Duration = 0 }, "--duration"},
		{"zero repeats", func(c *Config) { c.ListRepeats = 0 }, "--list-repeats"},
		{"negative pid", func(c *Config) { c.PID = -2 }, "--pid"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := Defaults()
			c.change(&cfg)
			err := cfg.Validate()
			if c.wantErr == "" && err != nil || c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)) {
				t.Errorf("Validate() = %v, want error containing %q", err, c.wantErr)
			}
		})
	}
}

func TestCheckNames(t *testing.T) {
	if err := CheckNames(Names); err != nil {
		t.Errorf("CheckNames(Names) = %v", err)
	}
	if err := CheckNames([]string{"get", "startup"}); err == nil || !strings.Contains(err.Error(), `"startup"`) {
		t.Errorf("CheckNames(startup) = %v, want an error naming it", err)
	}
}

func TestObject(t *testing.T) {
	r := &Runner{cfg: Config{Size: 30}, runID: "r1"}
	cm := r.object(7)
	wantLabels := map[string]string{LabelKey: "r1"}
	if cm.Name != "cm-00007" || !cmp.Equal(cm.Labels, wantLabels) || len(cm.Data["data"]) != 30 {
		t.Errorf("object(7) = %s %v with %d bytes, want cm-00007 %v with 30", cm.Name, cm.Labels, len(cm.Data["data"]), wantLabels)
	}
}

func TestByteCounter(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, strings.Repeat("x", 1234))
	}))
	defer srv.Close()
	var c ByteCounter
	client := &http.Client{Transport: c.Wrap(http.DefaultTransport)}
	for range 2 {
		resp, err := client.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
	if got := c.Load(); got != 2*1234 {
		t.Errorf("counted %d bytes, want %d", got, 2*1234)
	}
}

func TestProgressLine(t *testing.T) {
	cases := []struct {
		name              string
		done, total, errs int64
		elapsed           time.Duration
		want              string
	}{
		{"known total", 500, 10000, 2, time.Second, "create: 500/10000 ops, 500 ops/s, 2 errors"},
		{"unknown total", 30, 0, 0, 2 * time.Second, "create: 30 ops, 15 ops/s, 0 errors"},
		{"no time yet", 0, 5, 0, 0, "create: 0/5 ops, 0 ops/s, 0 errors"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := progressLine("create", c.done, c.total, c.errs, c.elapsed); got != c.want {
				t.Errorf("progressLine = %q, want %q", got, c.want)
			}
		})
	}
}

func TestProgressDisabledWritesNothing(t *testing.T) {
	var b strings.Builder
	p := NewProgress(&b, false)
	p.Begin("get", 3)
	p.Add(nil)
	p.Add(errors.New("x"))
	p.End()
	if b.Len() != 0 {
		t.Errorf("disabled progress wrote %q", b.String())
	}
}
