// Package result is the bench tool's data format: one Phase per measured
// step (printed as one JSON object per line with --output json), and the
// File that `make bench` writes to bench/results/ and `kapi bench report`
// reads. It is the contract between the runner, the report and any other
// tool that reads the numbers, so fields are only ever added.
package result

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"
)

// FormatVersion is bumped only on incompatible changes.
const FormatVersion = 1

// Phase is one measured step of a workload, such as "create" or
// "list/protobuf".
type Phase struct {
	// Target names what was measured: the server ("kapi",
	// "kube-apiserver") and its backend ("memory", "etcd").
	Server  string `json:"server,omitempty"`
	Backend string `json:"backend,omitempty"`
	// Workload is the named workload ("create", "list", "watch", ...);
	// Phase the step within it ("create", "list/json", "list/rv0",
	// "list/paged", "watch", "startup", "mixed").
	Workload string    `json:"workload"`
	Phase    string    `json:"phase"`
	Start    time.Time `json:"start"`
	// Params are the workload's knobs as run (objects, workers, size,
	// watchers, rate, duration, ...).
	Params map[string]any `json:"params,omitempty"`

	Ops     int64   `json:"ops"`
	Seconds float64 `json:"seconds"`
	// OpsPerSec is Ops / Seconds (0 when not meaningful).
	OpsPerSec float64 `json:"opsPerSec,omitempty"`
	// Errors counts failed operations by HTTP status code ("409") or by
	// "network"/"timeout" when there was no answer.
	Errors map[string]int64 `json:"errors,omitempty"`
	// Latency of the operations (request latency; for watch the delay
	// from the write's response to each watcher's event).
	Latency *Latency `json:"latency,omitempty"`
	// Bytes read from the server (list phases).
	Bytes int64 `json:"bytes,omitempty"`
	// Lost counts watch events that never arrived (must be 0).
	Lost *int64 `json:"lost,omitempty"`
	// ServerProcess is the server's resource use over the phase, when
	// the tool could see the process (--pid, or a server it launched).
	ServerProcess *Process `json:"serverProcess,omitempty"`
	// Extra holds workload-specific numbers (e.g. startup runs).
	Extra map[string]float64 `json:"extra,omitempty"`
}

// Latency is a latency distribution in milliseconds.
type Latency struct {
	Count int64   `json:"count"`
	Mean  float64 `json:"meanMs"`
	P50   float64 `json:"p50Ms"`
	P90   float64 `json:"p90Ms"`
	P99   float64 `json:"p99Ms"`
	Max   float64 `json:"maxMs"`
}

// Process is a server process's resource use during a phase.
type Process struct {
	PID int `json:"pid"`
	// CPUSeconds is user+system CPU time spent during the phase.
	CPUSeconds float64 `json:"cpuSeconds"`
	// CPUPerOpMs is CPUSeconds*1000/Ops (0 without ops).
	CPUPerOpMs float64 `json:"cpuPerOpMs,omitempty"`
	// RSSBytes is the resident set size at the end of the phase;
	// MaxRSSBytes the highest seen while sampling during it.
	RSSBytes    int64 `json:"rssBytes"`
	MaxRSSBytes int64 `json:"maxRssBytes,omitempty"`
}

// File is a results file: every phase of one or more runs, with where
// and what they measured.
type File struct {
	Version int       `json:"version"`
	Date    time.Time `json:"date"`
	// Commit is the kapi commit measured (for other servers: their
	// version in Server/Notes).
	Commit  string  `json:"commit,omitempty"`
	Machine Machine `json:"machine"`
	Notes   string  `json:"notes,omitempty"`
	Phases  []Phase `json:"phases"`
}

// Machine describes where the numbers were taken.
type Machine struct {
	CPUs      int    `json:"cpus"`
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	CPUModel  string `json:"cpuModel,omitempty"`
	GoVersion string `json:"goVersion,omitempty"`
}

// ReadFile reads and checks a results file.
func ReadFile(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f File
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: not a bench results file: %w", path, err)
	}
	if f.Version != FormatVersion {
		return nil, fmt.Errorf("%s: results format version %d, this tool reads %d", path, f.Version, FormatVersion)
	}
	return &f, nil
}

// WriteFile writes f as indented JSON.
func WriteFile(path string, f *File) error {
	f.Version = FormatVersion
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// WritePhase writes p as one line of JSON, the --output json format.
func WritePhase(w io.Writer, p Phase) error {
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// ReadPhases reads the --output json lines back.
func ReadPhases(r io.Reader) ([]Phase, error) {
	var out []Phase
	dec := json.NewDecoder(r)
	for {
		var p Phase
		err := dec.Decode(&p)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, fmt.Errorf("reading bench phases: %w", err)
		}
		out = append(out, p)
	}
}
