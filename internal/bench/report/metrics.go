package report

import "github.com/kapi-dev/kapi/internal/bench/result"

// metric is one section of the chart: a row of panels, one per phase.
type metric struct {
	title string
	// unit names the values of a phase's panel.
	unit func(phase string) string
	// value is what a bar shows: lo == hi for a plain bar, p50 and p99
	// for a latency bar.
	value func(p result.Phase) (lo, hi float64, ok bool)
	// isRange draws lo..hi as a solid then pale bar.
	isRange bool
}

func constUnit(u string) func(string) string { return func(string) string { return u } }

var metrics = []metric{
	{
		title: "Throughput (ops/s, higher is better); list and startup: duration (s, lower is better)",
		unit: func(phase string) string {
			if isDuration(phase) {
				return "s"
			}
			return "ops/s"
		},
		value: func(p result.Phase) (float64, float64, bool) {
			v := p.OpsPerSec
			if isDuration(p.Phase) {
				v = p.Seconds
			}
			return v, v, v > 0
		},
	},
	{
		title:   "Latency p50 (solid) to p99 (pale), ms, lower is better",
		unit:    constUnit("ms"),
		isRange: true,
		value: func(p result.Phase) (float64, float64, bool) {
			if p.Latency == nil || p.Latency.Count == 0 {
				return 0, 0, false
			}
			return p.Latency.P50, p.Latency.P99, true
		},
	},
	{
		title: "Server CPU per operation (ms, lower is better)",
		unit:  constUnit("ms/op"),
		value: func(p result.Phase) (float64, float64, bool) {
			if p.ServerProcess == nil || p.ServerProcess.CPUPerOpMs <= 0 {
				return 0, 0, false
			}
			v := p.ServerProcess.CPUPerOpMs
			return v, v, true
		},
	},
	{
		title: "Server RSS at the end of the phase (MB, lower is better)",
		unit:  constUnit("MB"),
		value: func(p result.Phase) (float64, float64, bool) {
			if p.ServerProcess == nil || p.ServerProcess.RSSBytes <= 0 {
				return 0, 0, false
			}
			v := float64(p.ServerProcess.RSSBytes) / (1 << 20)
			return v, v, true
		},
	},
}
