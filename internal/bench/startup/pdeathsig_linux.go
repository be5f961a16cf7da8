package startup

import (
	"os/exec"
	"syscall"
)

// setPdeathsig makes the kernel kill the server if the bench dies without
// stopping it (a panic, Ctrl-C twice), so no server outlives the run.
func setPdeathsig(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
