package storagetest

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// leakMarker identifies goroutines running kapi storage code.
const leakMarker = "github.com/kapi-dev/kapi/internal/storage"

// Run runs a package's tests and then fails (returns a non-zero code) if any
// goroutine is still running kapi storage code: every watch and backend must
// stop what it started. Call it from TestMain and pass the result to
// os.Exit after any cleanup.
func Run(m *testing.M) int {
	code := m.Run()
	if code == 0 {
		if leaked := leakedGoroutines(10 * time.Second); leaked != "" {
			fmt.Fprintf(os.Stderr, "goroutines leaked by storage code:\n\n%s\n", leaked)
			code = 1
		}
	}
	return code
}

// leakedGoroutines returns the stacks of storage goroutines that are still
// alive after waiting up to grace for them to finish exiting.
func leakedGoroutines(grace time.Duration) string {
	deadline := time.Now().Add(grace)
	for {
		leaked := storageGoroutines()
		if leaked == "" || time.Now().After(deadline) {
			return leaked
		}
		runtime.Gosched()
		time.Sleep(10 * time.Millisecond) // polling for exit; nothing to wait on
	}
}

func storageGoroutines() string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	stacks := bytes.Split(buf, []byte("\n\n"))
	var leaked []string
	// The first stack is the calling goroutine (TestMain).
	for _, st := range stacks[1:] {
		if s := string(st); strings.Contains(s, leakMarker) {
			leaked = append(leaked, s)
		}
	}
	return strings.Join(leaked, "\n\n")
}
