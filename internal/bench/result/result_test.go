package result

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestPhasesRoundTrip(t *testing.T) {
	lost := int64(0)
	in := []Phase{
		{Server: "kapi", Backend: "memory", Workload: "create", Phase: "create", Start: time.Unix(10, 0).UTC(),
			Params: map[string]any{"objects": float64(10)}, Ops: 10, Seconds: 0.5, OpsPerSec: 20,
			Errors: map[string]int64{"409": 1}, Latency: &Latency{Count: 10, P50: 1, P99: 3}},
		{Workload: "watch", Phase: "watch", Lost: &lost, ServerProcess: &Process{PID: 7, CPUSeconds: 1.5, RSSBytes: 1 << 20}},
	}
	var buf bytes.Buffer
	for _, p := range in {
		if err := WritePhase(&buf, p); err != nil {
			t.Fatal(err)
		}
	}
	if n := bytes.Count(buf.Bytes(), []byte("\n")); n != len(in) {
		t.Fatalf("%d lines for %d phases", n, len(in))
	}
	got, err := ReadPhases(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(in, got); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}
}

func TestFileVersion(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	f := &File{Date: time.Unix(0, 0).UTC(), Commit: "abc", Phases: []Phase{{Workload: "get", Phase: "get", Ops: 1}}}
	if err := WriteFile(path, f); err != nil {
		t.Fatal(err)
	}
	back, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Version != FormatVersion || back.Commit != "abc" || len(back.Phases) != 1 {
		t.Errorf("read back %+v", back)
	}
	f.Version = 0
	b := filepath.Join(dir, "old.json")
	if err := WriteFile(b, f); err != nil {
		t.Fatal(err)
	}
	// WriteFile always stamps the current version; a foreign version fails.
	if err := writeRaw(b, `{"version": 99, "phases": []}`); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(b); err == nil {
		t.Error("a version 99 file was accepted")
	}
	if err := writeRaw(b, `not json`); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(b); err == nil {
		t.Error("a non-JSON file was accepted")
	}
}
