package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/kapi-dev/kapi/internal/bench/result"
)

// WriteMarkdown prints one row per phase and series: throughput,
// duration, latency, server CPU per op, RSS and failures.
func WriteMarkdown(w io.Writer, c *Chart) error {
	if len(c.Series) == 0 {
		return fmt.Errorf("nothing to print: no phases")
	}
	var b strings.Builder
	b.WriteString("| phase | series | ops/s | seconds | p50 ms | p99 ms | CPU ms/op | RSS MB | errors |\n")
	b.WriteString("|---|---|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, ph := range c.Phases {
		for _, s := range c.Series {
			p, ok := c.Get(ph, s)
			if !ok {
				continue
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
				cellText(ph), cellText(s), opt(p.OpsPerSec), opt(p.Seconds),
				latency(p, false), latency(p, true), cpuPerOp(p), rss(p), failures(p))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func opt(v float64) string {
	if v <= 0 {
		return "–"
	}
	return num(v)
}

func latency(p result.Phase, p99 bool) string {
	if p.Latency == nil || p.Latency.Count == 0 {
		return "–"
	}
	if p99 {
		return num(p.Latency.P99)
	}
	return num(p.Latency.P50)
}

func cpuPerOp(p result.Phase) string {
	if p.ServerProcess == nil {
		return "–"
	}
	return opt(p.ServerProcess.CPUPerOpMs)
}

func rss(p result.Phase) string {
	if p.ServerProcess == nil {
		return "–"
	}
	return opt(float64(p.ServerProcess.RSSBytes) / (1 << 20))
}

// failures sums the errors, and names lost watch events, which must be 0.
func failures(p result.Phase) string {
	var n int64
	for _, v := range p.Errors {
		n += v
	}
	s := fmt.Sprint(n)
	if p.Lost != nil && *p.Lost > 0 {
		s += fmt.Sprintf(", %d lost", *p.Lost)
	}
	return s
}

// cellText keeps a label from breaking the table.
func cellText(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
