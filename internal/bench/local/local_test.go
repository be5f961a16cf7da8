package local

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/internal/bench/result"
)

func TestResultPaths(t *testing.T) {
	// Late evening in UTC-5 is already the next day in UTC.
	date := time.Date(2026, 8, 1, 22, 0, 0, 0, time.FixedZone("EST", -5*3600))
	want := Paths{JSON: "out/2026-08-02.json", Markdown: "out/2026-08-02.md", SVG: "out/2026-08-02.svg"}
	if got := ResultPaths("out", date); got != want {
		t.Errorf("ResultPaths = %+v, want %+v", got, want)
	}
}

func TestArgs(t *testing.T) {
	tests := []struct {
		name string
		got  []string
		want []string
	}{
		{
			name: "bench, no extra",
			got:  BenchArgs("/d/admin.kubeconfig", 42, "memory", nil),
			want: []string{"bench", "--kubeconfig", "/d/admin.kubeconfig", "--output", "json", "--pid", "42", "--server", "kapi", "--backend", "memory"},
		},
		{
			name: "bench, sizing flags and workloads before the owned flags",
			got:  BenchArgs("/k", 7, "etcd3", []string{"--objects", "200", "create", "--backend", "x"}),
			want: []string{"bench", "--objects", "200", "create", "--backend", "x",
				"--kubeconfig", "/k", "--output", "json", "--pid", "7", "--server", "kapi", "--backend", "etcd3"},
		},
		{
			name: "startup",
			got:  StartupArgs("/bin/kapi", "etcd3", 5),
			want: []string{"bench", "startup", "--binary", "/bin/kapi", "--backend", "etcd3", "--server", "kapi", "--runs", "5", "--output", "json"},
		},
	}
	for _, tt := range tests {
		if d := cmp.Diff(tt.want, tt.got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, d)
		}
	}
}

func TestCPUModel(t *testing.T) {
	tests := []struct{ in, want string }{
		{"processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\nprocessor\t: 1\nmodel name\t: other\n", "Intel(R) Xeon(R) CPU @ 2.20GHz"},
		{"processor\t: 0\nBogoMIPS\t: 50.00\n", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := CPUModel(tt.in); got != tt.want {
			t.Errorf("CPUModel(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDescribe(t *testing.T) {
	tests := []struct {
		f    result.File
		want string
	}{
		{result.File{Commit: "0123456789abcdef0123", Machine: result.Machine{CPUs: 2, OS: "linux", Arch: "amd64", CPUModel: "Xeon"}, Notes: "kapi bench --objects 200"},
			"commit 0123456789ab, 2 CPUs linux/amd64 (Xeon); kapi bench --objects 200"},
		{result.File{Machine: result.Machine{CPUs: 4, OS: "darwin", Arch: "arm64"}}, "commit unknown, 4 CPUs darwin/arm64"},
	}
	for _, tt := range tests {
		if got := describe(&tt.f); got != tt.want {
			t.Errorf("describe = %q, want %q", got, tt.want)
		}
	}
}

// TestWrite checks the three files of a run: the results file reads back,
// the table has a row per phase, the chart is XML.
func TestWrite(t *testing.T) {
	date := time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)
	f := &result.File{Date: date, Commit: "abc", Machine: result.Machine{CPUs: 2, OS: "linux", Arch: "amd64"}, Phases: []result.Phase{
		{Server: "kapi", Backend: "memory", Workload: "create", Phase: "create", Ops: 10, Seconds: 1, OpsPerSec: 10},
		{Server: "kapi", Backend: "etcd3", Workload: "create", Phase: "create", Ops: 10, Seconds: 2, OpsPerSec: 5},
		{Server: "kapi", Backend: "etcd3", Workload: "startup", Phase: "startup", Ops: 5, Seconds: 0.4},
	}}
	p := ResultPaths(filepath.Join(t.TempDir(), "results"), date)
	if err := Write(p, f); err != nil {
		t.Fatal(err)
	}
	back, err := result.ReadFile(p.JSON)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(f.Phases, back.Phases); d != "" || back.Commit != "abc" {
		t.Errorf("results file read back with commit %q, phases (-want +got):\n%s", back.Commit, d)
	}
	md, err := os.ReadFile(p.Markdown)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# kapi bench 2026-08-01", "commit abc", "| create | kapi/etcd3 | 5.00 |", "| create | kapi/memory | 10.0 |", "| startup | kapi/etcd3 |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	svg, err := os.ReadFile(p.SVG)
	if err != nil {
		t.Fatal(err)
	}
	var v struct{ XMLName xml.Name }
	if err := xml.Unmarshal(svg, &v); err != nil || v.XMLName.Local != "svg" {
		t.Errorf("chart is not an SVG document: %v %v", v.XMLName, err)
	}
}
