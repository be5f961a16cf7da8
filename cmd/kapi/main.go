// Command kapi is a Kubernetes API server in one binary. Installed or
// symlinked under the name kube-apiserver or etcd it stands in for that
// binary (see cli.CommandFor).
package main

import (
	"fmt"
	"os"

	"github.com/kapi-dev/kapi/internal/cli"
	"github.com/kapi-dev/kapi/internal/memlimit"
	"github.com/kapi-dev/kapi/internal/memlimit/inithold"
	_ "github.com/kapi-dev/kapi/internal/promdefer" // for its init
)

func main() {
	memlimit.ReleaseInitHold = inithold.Release
	if err := cli.CommandFor(os.Args[0]).Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
}
