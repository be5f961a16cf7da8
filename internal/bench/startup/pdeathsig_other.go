//go:build !linux

package startup

import "os/exec"

// setPdeathsig has no portable equivalent outside Linux; Stop ends the
// server in the ordinary case.
func setPdeathsig(*exec.Cmd) {}
