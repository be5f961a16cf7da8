package framework

import (
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Background is a kubectl that keeps running while the test goes on, such
// as `get -w`.
type Background struct {
	args []string
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{} // closed when the process has exited
	err  error         // set before done is closed

	stopOnce sync.Once
	stopErr  error
}

// KubectlBackground starts kubectl with the admin kubeconfig and returns
// at once. It is stopped when the test ends, if not before.
func (k *Kapi) KubectlBackground(t testing.TB, args ...string) *Background {
	t.Helper()
	full := append([]string{"--kubeconfig=" + k.kubeconfig, "--cache-dir=" + k.cacheDir}, args...)
	b := &Background{args: args, out: &syncBuffer{}, done: make(chan struct{})}
	b.cmd = exec.Command(k.bins.Kubectl, full...)
	b.cmd.Stdout, b.cmd.Stderr = b.out, b.out
	killWithParent(b.cmd)
	if err := b.cmd.Start(); err != nil {
		t.Fatalf("starting kubectl %s: %v", strings.Join(args, " "), err)
	}
	go func() {
		b.err = b.cmd.Wait()
		close(b.done)
	}()
	t.Cleanup(func() { _ = b.Stop() })
	return b
}

// Output is what kubectl printed so far, stdout and stderr interleaved.
func (b *Background) Output() string { return b.out.String() }

// WaitFor waits until the output contains s and reports whether it did
// before timeout or before kubectl exited.
func (b *Background) WaitFor(s string, timeout time.Duration) bool {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		out, changed := b.out.snapshot()
		if strings.Contains(out, s) {
			return true
		}
		select {
		case <-changed:
		case <-b.done:
			// The last write happened before Wait returned.
			return strings.Contains(b.out.String(), s)
		case <-timer.C:
			return false
		}
	}
}

// Stop ends kubectl (SIGTERM, then SIGKILL after stopTimeout) and waits for
// it. Being stopped is the expected end, so a signal exit is not an error;
// an exit kubectl chose itself before Stop is returned as one.
func (b *Background) Stop() error {
	b.stopOnce.Do(func() { b.stopErr = b.stop() })
	return b.stopErr
}

func (b *Background) stop() error {
	select {
	case <-b.done:
		if b.err != nil {
			return fmt.Errorf("kubectl %s: %w\n%s", strings.Join(b.args, " "), b.err, b.Output())
		}
		return nil
	default:
	}
	_ = b.cmd.Process.Signal(syscall.SIGTERM)
	timer := time.NewTimer(stopTimeout)
	defer timer.Stop()
	select {
	case <-b.done:
	case <-timer.C:
		_ = b.cmd.Process.Kill()
		<-b.done
	}
	return nil
}
