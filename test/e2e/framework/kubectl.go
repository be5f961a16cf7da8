package framework

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// KubectlError is a kubectl run that failed; Stderr is what kubectl said.
type KubectlError struct {
	Args   []string
	Stderr string
	Err    error
}

func (e *KubectlError) Error() string {
	return fmt.Sprintf("kubectl %s: %v\n%s", strings.Join(e.Args, " "), e.Err, e.Stderr)
}

func (e *KubectlError) Unwrap() error { return e.Err }

// Kubectl runs kubectl with the admin kubeconfig and returns its stdout. A
// failure is a *KubectlError carrying stderr.
func (k *Kapi) Kubectl(t testing.TB, args ...string) (string, error) {
	t.Helper()
	stdout, _, err := k.KubectlOutput(t, "", args...)
	return stdout, err
}

// KubectlStdin is Kubectl with stdin, for `apply -f -` and friends.
func (k *Kapi) KubectlStdin(t testing.TB, stdin string, args ...string) (string, error) {
	t.Helper()
	stdout, _, err := k.KubectlOutput(t, stdin, args...)
	return stdout, err
}

// KubectlOutput runs kubectl and returns stdout and stderr separately, for
// tests that check warnings or error messages.
func (k *Kapi) KubectlOutput(t testing.TB, stdin string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	// Each server gets its own discovery cache: ports are reused across
	// tests, and a cache from another server would show stale resources.
	global := []string{"--kubeconfig=" + k.kubeconfig, "--cache-dir=" + k.cacheDir}
	return RunKubectl(t, k.bins.Kubectl, stdin, append(global, args...)...)
}

// RunKubectl runs the kubectl binary at path with args, for runs that need
// no server or their own kubeconfig. It is killed if the test ends first.
func RunKubectl(t testing.TB, path, stdin string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	// The test's context ends before its cleanups run; a cleanup that
	// deletes objects with kubectl must still get to run it.
	ctx := t.Context()
	if ctx.Err() != nil {
		ctx = context.Background()
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return out.String(), errOut.String(), &KubectlError{Args: args, Stderr: errOut.String(), Err: err}
	}
	return out.String(), errOut.String(), nil
}
