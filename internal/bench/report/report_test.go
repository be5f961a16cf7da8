package report

import (
	"bytes"
	"encoding/xml"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/internal/bench/result"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// inputs are two runs of kapi (so its series carry dates) and a
// JSON-lines run of kube-apiserver.
var inputs = []string{"testdata/kapi-2026-08-01.json", "testdata/kube-apiserver.jsonl", "testdata/kapi-2026-07-01.json"}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s differs (-want +got; run with -update if the change is meant):\n%s", path, d)
	}
}

func loadChart(t *testing.T) *Chart {
	t.Helper()
	in, err := Load(inputs...)
	if err != nil {
		t.Fatal(err)
	}
	return Build(in)
}

func TestBuild(t *testing.T) {
	c := loadChart(t)
	wantSeries := []string{"kapi/etcd3", "kapi/memory (2026-07-01)", "kapi/memory (2026-08-01)", "kube-apiserver/etcd"}
	if d := cmp.Diff(wantSeries, c.Series); d != "" {
		t.Errorf("series (-want +got):\n%s", d)
	}
	wantPhases := []string{"create", "get", "update", "delete", "list/json", "list/protobuf", "list/rv0",
		"list/paged", "watch", "mixed/update-status", "startup"}
	if d := cmp.Diff(wantPhases, c.Phases); d != "" {
		t.Errorf("phases (-want +got):\n%s", d)
	}
	if _, ok := c.Get("startup", "kube-apiserver/etcd"); ok {
		t.Error("kube-apiserver has a startup phase it never ran")
	}
	if p, ok := c.Get("create", "kapi/memory (2026-07-01)"); !ok || p.OpsPerSec != 2000 {
		t.Errorf("old kapi/memory create = %v, %v; want 2000 ops/s", p.OpsPerSec, ok)
	}
}

func TestSeriesLabels(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 8, d, 10, 0, 0, 0, time.UTC) }
	ph := func(server, backend string) result.Phase {
		return result.Phase{Server: server, Backend: backend, Phase: "get"}
	}
	tests := []struct {
		name   string
		inputs []Input
		want   []string
	}{
		{name: "one run each", inputs: []Input{
			{Name: "a.json", Date: day(1), Phases: []result.Phase{ph("kapi", "memory"), ph("kapi", "etcd3")}},
			{Name: "b.json", Date: day(1), Phases: []result.Phase{ph("kube-apiserver", "")}},
		}, want: []string{"kapi/etcd3", "kapi/memory", "kube-apiserver"}},
		{name: "same server, two days", inputs: []Input{
			{Name: "a.json", Date: day(2), Phases: []result.Phase{ph("kapi", "memory")}},
			{Name: "b.json", Date: day(1), Phases: []result.Phase{ph("kapi", "memory")}},
		}, want: []string{"kapi/memory (2026-08-01)", "kapi/memory (2026-08-02)"}},
		{name: "same server, same day", inputs: []Input{
			{Name: "a.json", Date: day(1), Phases: []result.Phase{ph("kapi", "memory")}},
			{Name: "b.jsonl", Phases: []result.Phase{ph("kapi", "memory")}},
		}, want: []string{"kapi/memory (a.json)", "kapi/memory (b.jsonl)"}},
		{name: "no server name", inputs: []Input{
			{Name: "a.json", Phases: []result.Phase{ph("", "etcd")}},
		}, want: []string{"server/etcd"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, Build(tt.inputs).Series); d != "" {
				t.Errorf("series (-want +got):\n%s", d)
			}
		})
	}
}

func TestSVGGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSVG(&buf, loadChart(t), "kapi bench <test>\ncommit 0123456789ab & notes"); err != nil {
		t.Fatal(err)
	}
	golden(t, "chart.svg", buf.Bytes())

	// The chart must be well-formed XML, and hold every phase and series.
	dec := xml.NewDecoder(bytes.NewReader(buf.Bytes()))
	var text strings.Builder
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the SVG is not well-formed XML: %v", err)
		}
		if cd, ok := tok.(xml.CharData); ok {
			text.Write(cd)
		}
	}
	for _, want := range []string{"kapi bench <test>", "commit 0123456789ab & notes", "list/paged", "startup", "kube-apiserver/etcd", "p50 ", "ops/s", "MB"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the SVG's text lacks %q", want)
		}
	}
}

func TestMarkdownGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, loadChart(t)); err != nil {
		t.Fatal(err)
	}
	golden(t, "table.md", buf.Bytes())
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		path, want string
	}{
		{"testdata/missing.json", "no such file"},
		{"testdata/not-json.txt", "not-json.txt: not a bench results file or --output json phases"},
		{"testdata/empty-phases.json", "empty-phases.json: holds no phases"},
		{"testdata/wrong-version.json", "results format version 99"},
		{"testdata/other.json", "other.json: neither a bench results file"},
		{"testdata/bad-line.jsonl", "bad-line.jsonl: reading bench phases"},
		{"testdata/no-phase-name.jsonl", "no-phase-name.jsonl: phase 2 has no \"phase\" name"},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.path), func(t *testing.T) {
			_, err := Load(tt.path)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load(%s) error %v, want one containing %q", tt.path, err, tt.want)
			}
		})
	}
	if _, err := Load(); err == nil {
		t.Error("Load() with no files succeeded")
	}
}

func TestEmptyChart(t *testing.T) {
	if err := WriteSVG(io.Discard, Build(nil), "x"); err == nil {
		t.Error("WriteSVG drew an empty chart without error")
	}
	if err := WriteMarkdown(io.Discard, Build(nil)); err == nil {
		t.Error("WriteMarkdown printed an empty table without error")
	}
}

func TestFormat(t *testing.T) {
	nums := []struct {
		in   float64
		want string
	}{
		{0, "0"}, {0.01234, "0.0123"}, {0.5, "0.5"}, {1.234, "1.23"}, {12.34, "12.3"},
		{123.4, "123"}, {1234.5, "1,234"}, {1234567, "1,234,567"}, {-2500, "-2,500"},
	}
	for _, tt := range nums {
		if got := num(tt.in); got != tt.want {
			t.Errorf("num(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
	nice := []struct{ in, want float64 }{
		{0, 1}, {-3, 1}, {0.3, 0.5}, {1, 1}, {1.1, 2}, {2.2, 2.5}, {3, 5}, {7, 10}, {999, 1000}, {1200, 2000},
	}
	for _, tt := range nice {
		if got := niceMax(tt.in); got != tt.want {
			t.Errorf("niceMax(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
