//go:build !linux

package etcdcluster

import "os/exec"

// setProcAttr does nothing where the kernel cannot tie the member's life to
// the test process; tb.Cleanup still stops members of tests that end.
func setProcAttr(*exec.Cmd) {}
