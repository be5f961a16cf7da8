package binpages

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestRelease: the test binary's own pages leave its resident set.
func TestRelease(t *testing.T) {
	before := rssFileKB(t)
	advised, err := Release()
	if errors.Is(err, ErrUnsupported) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	after := rssFileKB(t)
	t.Logf("advised %d MB of mappings; file-backed resident set %d -> %d kB", advised>>20, before, after)
	if advised == 0 {
		t.Fatal("no mapping of the executable was found")
	}
	if after >= before {
		t.Errorf("file-backed resident set went from %d to %d kB, want it smaller", before, after)
	}
}

func rssFileKB(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "RssFile:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no RssFile in /proc/self/status")
	return 0
}
