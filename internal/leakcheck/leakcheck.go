// Package leakcheck fails a test binary whose packages leave goroutines
// running after every test ended. Call Main from TestMain with a marker
// naming the code that must stop; it waits a grace period, because a
// goroutine that has just returned can still show up in a stack dump
// while it exits.
package leakcheck

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Grace is how long Main waits for goroutines that are exiting.
const Grace = 10 * time.Second

// Main runs the tests, then reports (non-zero) when a goroutine whose
// stack contains any of markers is still alive after Grace. Pass the
// result to os.Exit.
func Main(m *testing.M, markers ...string) int {
	code := m.Run()
	if code != 0 {
		return code
	}
	if leaked := Leaked(Grace, markers...); leaked != "" {
		fmt.Fprintf(os.Stderr, "leaked goroutines:\n\n%s\n", leaked)
		return 1
	}
	return 0
}

// Leaked returns the stacks of goroutines matching a marker that are still
// alive after waiting up to grace for them to finish, or "".
func Leaked(grace time.Duration, markers ...string) string {
	deadline := time.Now().Add(grace)
	for {
		leaked := matching(markers)
		if leaked == "" || time.Now().After(deadline) {
			return leaked
		}
		runtime.Gosched()
		time.Sleep(10 * time.Millisecond) // polling for exit: nothing to wait on
	}
}

func matching(markers []string) string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var leaked []string
	for _, st := range bytes.Split(buf, []byte("\n\n")) {
		s := string(st)
		if strings.Contains(s, "leakcheck.matching") {
			continue // the goroutine asking
		}
		for _, m := range markers {
			if strings.Contains(s, m) {
				leaked = append(leaked, s)
				break
			}
		}
	}
	return strings.Join(leaked, "\n\n")
}
