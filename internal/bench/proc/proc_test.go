package proc

import (
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/internal/bench/result"
)

func TestParseStatCPU(t *testing.T) {
	cases := []struct {
		name    string
		stat    string
		want    float64
		wantErr bool
	}{
		{"plain", "42 (kapi) S 1 42 42 0 -1 4194560 100 0 0 0 250 130 0 0 20 0 12 0 100 0 0", 3.8, false},
		{"name with spaces and parens", "7 (a b) (c)) R 1 7 7 0 -1 0 0 0 0 0 5 5 0 0 20 0 1 0", 0.1, false},
		{"no name", "42 kapi S 1", 0, true},
		{"too short", "42 (kapi) S 1 42", 0, true},
		{"not a number", "42 (kapi) S 1 42 42 0 -1 4194560 100 0 0 0 x 130 0", 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseStatCPU([]byte(c.stat))
			if (err != nil) != c.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, c.wantErr)
			}
			if got != c.want {
				t.Errorf("CPU = %v, want %v", got, c.want)
			}
		})
	}
}

func TestParseStatusRSS(t *testing.T) {
	cases := []struct {
		name    string
		status  string
		want    int64
		wantErr bool
	}{
		{"usual", "Name:\tkapi\nVmPeak:\t  9000 kB\nVmRSS:\t   1234 kB\nThreads:\t12\n", 1234 * 1024, false},
		{"last line without newline", "Name:\tkapi\nVmRSS:\t8 kB", 8 * 1024, false},
		{"missing", "Name:\tkthreadd\nThreads:\t1\n", 0, true},
		{"odd unit", "VmRSS:\t8 MB\n", 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseStatusRSS([]byte(c.status))
			if (err != nil) != c.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, c.wantErr)
			}
			if got != c.want {
				t.Errorf("RSS = %d, want %d", got, c.want)
			}
		})
	}
}

func TestProcessNumbers(t *testing.T) {
	s := &Sampler{pid: 9, start: Usage{CPUSeconds: 1.5, RSSBytes: 100}, maxRSS: 100}
	s.observe(500)
	s.observe(300)
	got := s.process(Usage{CPUSeconds: 3.5, RSSBytes: 200}, 1000)
	want := &result.Process{PID: 9, CPUSeconds: 2, CPUPerOpMs: 2, RSSBytes: 200, MaxRSSBytes: 500}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("process (-want +got):\n%s", diff)
	}
	if got := s.process(Usage{CPUSeconds: 1.5}, 0); got.CPUPerOpMs != 0 {
		t.Errorf("CPUPerOpMs without ops = %v, want 0", got.CPUPerOpMs)
	}
}

// TestSelf samples this test process, which certainly exists.
func TestSelf(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	s, err := Start(os.Getpid(), time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	p := s.Stop(1)
	if p == nil {
		t.Fatal("Stop returned nil for a live process")
	}
	if p.PID != os.Getpid() || p.RSSBytes <= 0 || p.MaxRSSBytes < p.RSSBytes || p.CPUSeconds < 0 {
		t.Errorf("implausible reading of self: %+v", p)
	}
	if _, err := Start(-1, time.Millisecond); err == nil {
		t.Error("Start(-1) succeeded, want an error")
	}
}
