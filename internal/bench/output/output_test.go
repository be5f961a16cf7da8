package output

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/internal/bench/result"
)

func TestRow(t *testing.T) {
	lost := int64(0)
	cases := []struct {
		name  string
		phase result.Phase
		want  []string
	}{
		{"bare", result.Phase{Phase: "get", Ops: 3}, []string{"get", "3", "-", "-", "-", "-", "0", "-", "-", "-"}},
		{"crud with server", result.Phase{
			Phase: "create", Ops: 10000, OpsPerSec: 812.345,
			Latency:       &result.Latency{P50: 4.5, P90: 12.25, P99: 45.04},
			Errors:        map[string]int64{"network": 1, "409": 2},
			ServerProcess: &result.Process{CPUPerOpMs: 1.5, RSSBytes: 123_400_000},
		}, []string{"create", "10000", "812.3", "4.50ms", "12.2ms", "45.0ms", "409:2,network:1", "-", "1.50ms", "123.4MB"}},
		{"list", result.Phase{Phase: "list/json", Ops: 3, Bytes: 14_700_000, Latency: &result.Latency{P50: 200, P90: 210, P99: 210}},
			[]string{"list/json", "3", "-", "200.0ms", "210.0ms", "210.0ms", "0", "14.7MB", "-", "-"}},
		{"watch", result.Phase{Phase: "watch", Ops: 100, OpsPerSec: 100, Lost: &lost},
			[]string{"watch", "100", "100.0", "-", "-", "-", "0,lost:0", "-", "-", "-"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, Row(c.phase)); diff != "" {
				t.Errorf("Row (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBytes(t *testing.T) {
	cases := map[int64]string{0: "0B", 999: "999B", 1000: "1.0kB", 14_700_000: "14.7MB", 2_500_000_000: "2.50GB"}
	for n, want := range cases {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestWriteTableAligned(t *testing.T) {
	var b bytes.Buffer
	phases := []result.Phase{{Phase: "create", Ops: 5}, {Phase: "list/protobuf", Ops: 3}}
	if err := WriteTable(&b, phases); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("got %d lines, want a header and 2 rows:\n%s", len(lines), b.String())
	}
	// Aligned: the OPS column starts at the same offset on every line.
	col := strings.Index(lines[0], "OPS")
	for _, l := range lines[1:] {
		if l[col-1] != ' ' || l[col] == ' ' {
			t.Errorf("OPS column not at offset %d in %q", col, l)
		}
	}
}

func TestWriteJSONRoundTrip(t *testing.T) {
	lost := int64(2)
	in := []result.Phase{
		{Workload: "watch", Phase: "watch", Start: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Ops: 7, Lost: &lost},
		{Workload: "list", Phase: "list/json", Start: time.Date(2026, 1, 2, 3, 4, 6, 0, time.UTC), Bytes: 9},
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, in); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "\n"); n != len(in) {
		t.Errorf("%d lines, want one per phase (%d)", n, len(in))
	}
	out, err := result.ReadPhases(&b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, out); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}
