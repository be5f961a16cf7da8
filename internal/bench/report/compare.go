package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/kapi-dev/kapi/internal/bench/result"
)

// figure is one number of a phase that two runs can be compared on.
type figure struct {
	name  string
	value func(p result.Phase) (float64, bool)
}

// figures are printed in this order for every phase both runs have.
var figures = []figure{
	{"ops/s", func(p result.Phase) (float64, bool) { return p.OpsPerSec, p.OpsPerSec > 0 }},
	{"seconds", func(p result.Phase) (float64, bool) { return p.Seconds, p.Seconds > 0 }},
	{"p50 ms", func(p result.Phase) (float64, bool) { return latencyOf(p, false) }},
	{"p99 ms", func(p result.Phase) (float64, bool) { return latencyOf(p, true) }},
	{"server CPU s", func(p result.Phase) (float64, bool) {
		return processValue(p, func(pr *result.Process) float64 { return pr.CPUSeconds })
	}},
	{"server CPU ms/op", func(p result.Phase) (float64, bool) {
		return processValue(p, func(pr *result.Process) float64 { return pr.CPUPerOpMs })
	}},
	{"RSS MB", func(p result.Phase) (float64, bool) {
		return processValue(p, func(pr *result.Process) float64 { return float64(pr.RSSBytes) / (1 << 20) })
	}},
	{"max RSS MB", func(p result.Phase) (float64, bool) {
		return processValue(p, func(pr *result.Process) float64 { return float64(pr.MaxRSSBytes) / (1 << 20) })
	}},
	{"bytes", func(p result.Phase) (float64, bool) { return float64(p.Bytes), p.Bytes > 0 }},
	{"errors", func(p result.Phase) (float64, bool) {
		var n int64
		for _, c := range p.Errors {
			n += c
		}
		return float64(n), len(p.Errors) > 0
	}},
	{"lost", func(p result.Phase) (float64, bool) {
		if p.Lost == nil {
			return 0, false
		}
		return float64(*p.Lost), true
	}},
}

func latencyOf(p result.Phase, p99 bool) (float64, bool) {
	if p.Latency == nil || p.Latency.Count == 0 {
		return 0, false
	}
	if p99 {
		return p.Latency.P99, true
	}
	return p.Latency.P50, true
}

func processValue(p result.Phase, get func(*result.Process) float64) (float64, bool) {
	if p.ServerProcess == nil {
		return 0, false
	}
	v := get(p.ServerProcess)
	return v, v > 0
}

// WriteComparison prints every figure of every phase of run a and run b,
// one line each, with the ratio b/a. Phases are matched by name (the
// servers and backends of the two runs usually differ: that is the
// point); a phase only one run has is listed with "–" for the other. When
// a run holds a phase more than once (a results file of several runs) the
// last one counts.
func WriteComparison(w io.Writer, a, b Input) error {
	pa, pb := lastByPhase(a.Phases), lastByPhase(b.Phases)
	var names []string
	for _, p := range a.Phases {
		names = appendOnce(names, p.Phase)
	}
	for _, p := range b.Phases {
		names = appendOnce(names, p.Phase)
	}
	fmt.Fprintf(w, "A: %s (%s)\nB: %s (%s)\n\n", a.Name, runLabel(a), b.Name, runLabel(b))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "phase\tfigure\tA\tB\tB/A\t")
	for _, name := range names {
		x, inA := pa[name]
		y, inB := pb[name]
		for _, f := range figures {
			va, okA := value(f, x, inA)
			vb, okB := value(f, y, inB)
			if !okA && !okB {
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", name, f.name, figureCell(va, okA), figureCell(vb, okB), ratio(va, okA, vb, okB))
		}
		for _, k := range extraKeys(x, y) {
			va, okA := x.Extra[k]
			vb, okB := y.Extra[k]
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", name, k, figureCell(va, okA), figureCell(vb, okB), ratio(va, okA, vb, okB))
		}
	}
	return tw.Flush()
}

func value(f figure, p result.Phase, present bool) (float64, bool) {
	if !present {
		return 0, false
	}
	return f.value(p)
}

func lastByPhase(phases []result.Phase) map[string]result.Phase {
	out := make(map[string]result.Phase, len(phases))
	for _, p := range phases {
		out[p.Phase] = p
	}
	return out
}

func appendOnce(names []string, name string) []string {
	if slices.Contains(names, name) {
		return names
	}
	return append(names, name)
}

// extraKeys are the workload-specific numbers of either phase, sorted.
func extraKeys(a, b result.Phase) []string {
	var keys []string
	for k := range a.Extra {
		keys = appendOnce(keys, k)
	}
	for k := range b.Extra {
		keys = appendOnce(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// runLabel names what a run measured: its servers and backends, and its
// date when known.
func runLabel(in Input) string {
	var targets []string
	for _, p := range in.Phases {
		t := p.Server
		if p.Backend != "" {
			t += "/" + p.Backend
		}
		if t != "" {
			targets = appendOnce(targets, t)
		}
	}
	label := strings.Join(targets, ", ")
	if label == "" {
		label = "unlabelled"
	}
	if !in.Date.IsZero() {
		label += ", " + in.Date.UTC().Format("2006-01-02 15:04")
	}
	return label
}

func figureCell(v float64, ok bool) string {
	if !ok {
		return "–"
	}
	return num(v)
}

func ratio(a float64, okA bool, b float64, okB bool) string {
	if !okA || !okB || a == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", b/a)
}
