package logbackend

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	auditv1 "github.com/kapi-dev/kapi/internal/audit/v1"
)

// readEvents decodes every line of path as an Event, failing on anything
// that is not one.
func readEvents(t *testing.T, path string) []auditv1.Event {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var events []auditv1.Event
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		d := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		d.DisallowUnknownFields()
		var e auditv1.Event
		if err := d.Decode(&e); err != nil {
			t.Fatalf("line %q is not an Event: %v", sc.Text(), err)
		}
		if e.APIVersion != "audit.k8s.io/v1" || e.Kind != "Event" {
			t.Fatalf("line has apiVersion %q kind %q", e.APIVersion, e.Kind)
		}
		events = append(events, e)
	}
	return events
}

func TestWritesJSONLines(t *testing.T) {
	for _, maxSize := range []int{0, 100} {
		t.Run("maxsize="+strconv.Itoa(maxSize), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sub", "audit.log")
			b, err := New(path, maxSize, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if err := b.Run(nil); err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			for i := range 20 {
				wg.Go(func() {
					// The caller's event has no type; the line must.
					if !b.ProcessEvents(&auditv1.Event{AuditID: "id", Level: auditv1.LevelMetadata, RequestURI: "/r/" + strconv.Itoa(i)}) {
						t.Error("ProcessEvents failed")
					}
				})
			}
			wg.Wait()
			b.Shutdown()
			events := readEvents(t, path)
			if len(events) != 20 {
				t.Errorf("got %d events, want 20", len(events))
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if perm := fi.Mode().Perm(); perm != 0o600 {
				t.Errorf("log file mode %o, want 600", perm)
			}
			if b.ProcessEvents(&auditv1.Event{}) {
				t.Error("ProcessEvents after Shutdown succeeded")
			}
		})
	}
}

func TestRotatesAtSize(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.log")
	const maxBackups = 2
	b, err := New(path, 1, 0, maxBackups)
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 10<<10)
	const n = 400 // ~4 MB: three rotations at 1 MB
	for i := range n {
		ev := &auditv1.Event{AuditID: "id", Annotations: map[string]string{"pad": big, "i": strconv.Itoa(i)}}
		if !b.ProcessEvents(ev) {
			t.Fatal("ProcessEvents failed")
		}
	}
	b.Shutdown()

	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > 1<<20 {
		t.Errorf("current file is %d bytes, over the 1 MB limit", fi.Size())
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var backups []string
	for _, e := range entries {
		if e.Name() != "audit.log" {
			backups = append(backups, e.Name())
		}
	}
	// Old backups are removed in the background; at least one must exist.
	if len(backups) == 0 {
		t.Fatalf("no rotated files in %v", entries)
	}
	total := len(readEvents(t, path))
	for _, name := range backups {
		if !strings.HasPrefix(name, "audit-") || !strings.HasSuffix(name, ".log") {
			t.Errorf("unexpected file %q", name)
		}
		total += len(readEvents(t, filepath.Join(dir, name)))
	}
	if total > n || total < 1 {
		t.Errorf("found %d events across files, want between 1 and %d", total, n)
	}
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		name               string
		path               string
		size, age, backups int
		want               string
	}{
		{"negative age", "x", 1, -1, 0, "--audit-log-maxage -1 can't be a negative number"},
		{"negative backups", "x", 1, 0, -2, "--audit-log-maxbackup -2 can't be a negative number"},
		{"negative size", "x", -3, 0, 0, "--audit-log-maxsize -3 can't be a negative number"},
		{"empty path", "", 0, 0, 0, "--audit-log-path is empty"},
		{"unwritable", "/proc/none/audit.log", 0, 0, 0, "ensureLogFile"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.path, tt.size, tt.age, tt.backups)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestStdout(t *testing.T) {
	b, err := New("-", 100, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if lb := b.(*backend); lb.out != os.Stdout || lb.closer != nil {
		t.Errorf("\"-\" does not write to stdout, or would close it")
	}
	b.Shutdown()
}

func BenchmarkProcessEvents(b *testing.B) {
	be, err := New(filepath.Join(b.TempDir(), "audit.log"), 100, 0, 1)
	if err != nil {
		b.Fatal(err)
	}
	defer be.Shutdown()
	ev := &auditv1.Event{AuditID: "0b8c7c31-0d6b-4cf0-9a63-8f0e6d2b8f51", Level: auditv1.LevelMetadata, Stage: auditv1.StageResponseComplete,
		RequestURI: "/api/v1/namespaces/default/pods?limit=500", Verb: "list", SourceIPs: []string{"10.0.0.1"}, UserAgent: "kubectl/v1.37.2",
		ObjectRef: &auditv1.ObjectReference{Resource: "pods", Namespace: "default", APIVersion: "v1"}}
	for b.Loop() {
		be.ProcessEvents(ev)
	}
}
