// Package output prints bench phases for people (an aligned table) and
// for machines (one JSON object per line, result.WritePhase).
package output

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/kapi-dev/kapi/internal/bench/result"
)

// Header is the table's first line.
var Header = []string{"PHASE", "OPS", "OPS/S", "P50", "P90", "P99", "ERRORS", "BYTES", "SERVER-CPU/OP", "RSS"}

// WriteTable prints phases as an aligned table with a header.
func WriteTable(w io.Writer, phases []result.Phase) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(Header, "\t"))
	for _, p := range phases {
		fmt.Fprintln(tw, strings.Join(Row(p), "\t"))
	}
	return tw.Flush()
}

// WriteJSON prints each phase as one line of JSON.
func WriteJSON(w io.Writer, phases []result.Phase) error {
	for _, p := range phases {
		if err := result.WritePhase(w, p); err != nil {
			return err
		}
	}
	return nil
}

// Row is a phase's cells under Header; "-" where there is no number.
func Row(p result.Phase) []string {
	row := []string{p.Phase, fmt.Sprint(p.Ops), "-", "-", "-", "-", errorsCell(p), "-", "-", "-"}
	if p.OpsPerSec > 0 {
		row[2] = fmt.Sprintf("%.1f", p.OpsPerSec)
	}
	if l := p.Latency; l != nil {
		row[3], row[4], row[5] = millis(l.P50), millis(l.P90), millis(l.P99)
	}
	if p.Bytes > 0 {
		row[7] = Bytes(p.Bytes)
	}
	if sp := p.ServerProcess; sp != nil {
		if sp.CPUPerOpMs > 0 {
			row[8] = millis(sp.CPUPerOpMs)
		}
		row[9] = Bytes(sp.RSSBytes)
	}
	return row
}

// errorsCell lists errors by code in order ("409:2,network:1", "0"), and
// a watch's lost events.
func errorsCell(p result.Phase) string {
	var parts []string
	for _, code := range slices.Sorted(maps.Keys(p.Errors)) {
		parts = append(parts, fmt.Sprintf("%s:%d", code, p.Errors[code]))
	}
	if len(parts) == 0 {
		parts = []string{"0"}
	}
	if p.Lost != nil {
		parts = append(parts, fmt.Sprintf("lost:%d", *p.Lost))
	}
	return strings.Join(parts, ",")
}

func millis(ms float64) string {
	if ms < 10 {
		return fmt.Sprintf("%.2fms", ms)
	}
	return fmt.Sprintf("%.1fms", ms)
}

// Bytes prints n in decimal units, as the issue quotes sizes (14.7MB).
func Bytes(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2fGB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1fMB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1fkB", float64(n)/1e3)
	}
	return fmt.Sprintf("%dB", n)
}
