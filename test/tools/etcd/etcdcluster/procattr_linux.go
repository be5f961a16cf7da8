package etcdcluster

import (
	"os/exec"
	"syscall"
)

// setProcAttr makes the kernel kill the member if the test process dies
// (a panic, a test timeout), so no etcd outlives the test that started it.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
