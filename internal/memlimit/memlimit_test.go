package memlimit

import (
	"log/slog"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in      string
		want    Setting
		wantErr string
	}{
		{in: "auto", want: Auto},
		{in: "", want: Auto},
		{in: "off", want: Setting{mode: modeOff}},
		{in: "OFF", want: Setting{mode: modeOff}},
		{in: "512Mi", want: Setting{mode: modeFixed, bytes: 512 << 20}},
		{in: "2G", want: Setting{mode: modeFixed, bytes: 2e9}},
		{in: "1048576", want: Setting{mode: modeFixed, bytes: 1 << 20}},
		{in: "lots", wantErr: `"lots" is neither auto, off nor a quantity`},
		{in: "0", wantErr: `"0" must be a positive number of bytes`},
		{in: "-1Gi", wantErr: `"-1Gi" must be a positive number of bytes`},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Parse(%q) error = %v, want one containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
		if back, err := Parse(got.String()); err != nil || back != got {
			t.Errorf("Parse(%q).String() = %q does not parse back: %+v, %v", tt.in, got.String(), back, err)
		}
	}
}

func TestAutoLimit(t *testing.T) {
	const mi = 1 << 20
	tests := []struct {
		name          string
		live, ceiling uint64
		want          uint64
	}{
		{"idle server keeps the minimum headroom", 20 * mi, 0, 84 * mi},
		{"headroom is half the live heap once that is larger", 400 * mi, 0, 600 * mi},
		{"at the crossover", 128 * mi, 0, 192 * mi},
		{"a cgroup ceiling caps it", 400 * mi, 500 * mi, 500 * mi},
		{"a ceiling above the limit changes nothing", 20 * mi, 1000 * mi, 84 * mi},
	}
	for _, tt := range tests {
		if got := autoLimit(tt.live, tt.ceiling); got != tt.want {
			t.Errorf("%s: autoLimit(%d, %d) = %d, want %d", tt.name, tt.live, tt.ceiling, got, tt.want)
		}
	}
}

func TestCgroupCeiling(t *testing.T) {
	const gi = 1 << 30
	tests := []struct {
		name  string
		files map[string]string
		want  uint64
	}{
		{"no cgroup files", map[string]string{}, 0},
		{"v2 limit at the process's path", map[string]string{
			"proc/self/cgroup":                       "0::/kubepods/pod1\n",
			"sys/fs/cgroup/kubepods/pod1/memory.max": "1073741824\n",
		}, gi * 9 / 10},
		{"v2 without a limit", map[string]string{
			"proc/self/cgroup":         "0::/\n",
			"sys/fs/cgroup/memory.max": "max\n",
		}, 0},
		{"v1 limit at the process's path", map[string]string{
			"proc/self/cgroup": "4:memory:/docker/abc\n1:cpu:/\n0::/\n",
			"sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes": "2147483648",
		}, 2 * gi * 9 / 10},
		{"v1 mounted at the container's own cgroup", map[string]string{
			"proc/self/cgroup":                           "4:cpu,memory:/docker/abc\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes": "1073741824",
		}, gi * 9 / 10},
		{"v1 without a limit", map[string]string{
			"proc/self/cgroup":                           "4:memory:/\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712",
		}, 0},
	}
	for _, tt := range tests {
		root := fstest.MapFS{}
		for name, data := range tt.files {
			root[name] = &fstest.MapFile{Data: []byte(data)}
		}
		if got := cgroupCeiling(root, slog.New(slog.DiscardHandler)); got != tt.want {
			t.Errorf("%s: cgroupCeiling = %d, want %d", tt.name, got, tt.want)
		}
	}
}

// TestStart changes the process's memory limit, so it does not run in
// parallel with anything.
func TestStart(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetMemoryLimit(-1)

	stop := Start(Setting{mode: modeFixed, bytes: 3 << 30}, nil)
	if got := debug.SetMemoryLimit(-1); got != 3<<30 {
		t.Errorf("fixed: limit = %d, want %d", got, 3<<30)
	}
	stop()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("after stop: limit = %d, want the earlier %d", got, before)
	}

	stop = Start(Setting{mode: modeOff}, nil)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("off: limit = %d, want none", got)
	}
	stop()

	// Auto follows the live heap: a collection after the heap has grown
	// by far more than the minimum headroom raises the limit.
	stop = Start(Auto, nil)
	first := debug.SetMemoryLimit(-1)
	if first == math.MaxInt64 || first < minHeadroom {
		t.Fatalf("auto: limit = %d, want one derived from the live heap", first)
	}
	ballast := make([][]byte, 0, 256)
	for range 256 {
		ballast = append(ballast, make([]byte, 1<<20))
	}
	waitForLimit(t, "above", func(l int64) bool { return l >= first+128<<20 })
	runtime.KeepAlive(ballast)
	// And lowers it again when the data goes.
	ballast = nil
	waitForLimit(t, "back near", func(l int64) bool { return l < first+32<<20 })
	stop()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("after stop: limit = %d, want the earlier %d", got, before)
	}
	// After stop, collections leave the limit alone.
	debug.SetMemoryLimit(math.MaxInt64 - 1)
	runtime.GC()
	runtime.GC()
	if got := debug.SetMemoryLimit(before); got != math.MaxInt64-1 {
		t.Errorf("a collection after stop changed the limit to %d", got)
	}
}

func TestStartAutoLeavesGOMEMLIMIT(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "1GiB")
	before := debug.SetMemoryLimit(-1)
	stop := Start(Auto, nil)
	defer stop()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit = %d, want the environment's %d left alone", got, before)
	}
}

// waitForLimit collects until the follower has moved the limit where ok
// wants it; the cleanup that does it runs on the runtime's own goroutine
// after a cycle.
func waitForLimit(t *testing.T, where string, ok func(int64) bool) {
	t.Helper()
	for range 100 {
		runtime.GC()
		runtime.Gosched()
		if ok(debug.SetMemoryLimit(-1)) {
			return
		}
	}
	t.Fatalf("limit = %d after 100 collections, want it %s the first", debug.SetMemoryLimit(-1), where)
}

func TestStartupCollector(t *testing.T) {
	t.Setenv("GOGC", "")
	if err := os.Unsetenv("GOGC"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		bounded bool
		want    int // the GC percent while starting
	}{
		{"bounded by a limit: off until the limit", true, -1},
		{"unbounded: a high target", false, startupGCPercent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prev := debug.SetGCPercent(100)
			defer debug.SetGCPercent(prev)

			freed := make(chan struct{}, 4)
			released := make(chan struct{}, 4)
			savedFree, savedRelease, savedDelay := freeOSMemory, releaseBinaryPages, settleDelay
			freeOSMemory, settleDelay = func() { freed <- struct{}{} }, 10*time.Millisecond
			releaseBinaryPages = func(*slog.Logger) { released <- struct{}{} }
			defer func() { freeOSMemory, releaseBinaryPages, settleDelay = savedFree, savedRelease, savedDelay }()

			ready := StartupCollector(tc.bounded, slog.New(slog.DiscardHandler))
			if got := debug.SetGCPercent(tc.want); got != tc.want {
				t.Errorf("while starting the GC percent is %d, want %d", got, tc.want)
			}
			ready()
			ready()
			if got := debug.SetGCPercent(100); got != 100 {
				t.Errorf("once ready the GC percent is %d, want 100 back", got)
			}
			// Once at ready and once after the controllers settled.
			for i := range 2 {
				select {
				case <-freed:
				case <-time.After(10 * time.Second):
					t.Fatalf("the start's garbage was returned %d times, want 2", i)
				}
			}
			// The binary's pages once, with the settled return.
			select {
			case <-released:
			case <-time.After(10 * time.Second):
				t.Fatal("the binary's start pages were not released")
			}
			time.Sleep(50 * time.Millisecond)
			if n := len(freed); n != 0 {
				t.Errorf("returned %d more times, want exactly 2 (ready counts once)", n)
			}
			if n := len(released); n != 0 {
				t.Errorf("released the binary's pages %d more times, want once", n)
			}
		})
	}
}

// TestSettingBounds: only a limit kapi sets bounds the heap for the
// start; off and an inherited GOMEMLIMIT of unknown size do not.
func TestSettingBounds(t *testing.T) {
	fixed, err := Parse("512Mi")
	if err != nil {
		t.Fatal(err)
	}
	off, err := Parse("off")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOMEMLIMIT", "")
	if err := os.Unsetenv("GOMEMLIMIT"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		s          Setting
		gomemlimit string
		want       bool
	}{
		{"auto", Auto, "", true},
		{"auto under GOMEMLIMIT", Auto, "64GiB", false},
		{"fixed", fixed, "", true},
		{"fixed under GOMEMLIMIT", fixed, "64GiB", true},
		{"off", off, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.gomemlimit != "" {
				t.Setenv("GOMEMLIMIT", tc.gomemlimit)
			}
			if got := tc.s.Bounds(); got != tc.want {
				t.Errorf("Bounds() = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestStartupCollectorLeavesGOGC(t *testing.T) {
	t.Setenv("GOGC", "150")
	prev := debug.SetGCPercent(150)
	defer debug.SetGCPercent(prev)

	released := make(chan struct{}, 1)
	savedRelease, savedDelay := releaseBinaryPages, settleDelay
	releaseBinaryPages, settleDelay = func(*slog.Logger) { released <- struct{}{} }, 10*time.Millisecond
	defer func() { releaseBinaryPages, settleDelay = savedRelease, savedDelay }()

	ready := StartupCollector(true, slog.New(slog.DiscardHandler))
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("with GOGC set the GC percent became %d, want 150 left alone", got)
	}
	ready()
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("with GOGC set, ready made the GC percent %d, want 150 left alone", got)
	}
	select {
	case <-released: // the binary's pages have nothing to do with GOGC
	case <-time.After(10 * time.Second):
		t.Fatal("with GOGC set the binary's start pages were not released")
	}
}
