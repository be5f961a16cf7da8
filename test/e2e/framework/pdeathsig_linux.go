package framework

import (
	"os/exec"
	"syscall"
)

// killWithParent makes the kernel kill kapi if the test binary dies without
// running its cleanups (a panic, a -timeout), so no server outlives the run.
func killWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
