package cli

import (
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// Names kapi answers to as a drop-in for another binary.
const (
	dropInKubeAPIServer = "kube-apiserver"
	dropInEtcd          = "etcd"
)

// CommandFor returns the command to run for the name the binary was
// invoked under (argv[0]): kapi installed or symlinked as kube-apiserver
// is kube-apiserver to its caller, as etcd an embedded etcd; under any
// other name it is the `kapi` command.
func CommandFor(argv0 string) *cobra.Command {
	name := strings.TrimSuffix(filepath.Base(argv0), ".exe")
	switch name {
	case dropInKubeAPIServer:
		return NewKubeAPIServerCommand()
	case dropInEtcd:
		return NewEtcdCommand()
	}
	return NewKapiCommand()
}
