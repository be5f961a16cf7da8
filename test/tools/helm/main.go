// Command helm is the real helm, built from the helm.sh/helm/v4 module at
// the version go.mod pins, so black-box tests install charts into kapi
// with exactly what users run, without needing a helm installed on the
// machine.
//
// It mirrors upstream's cmd/helm: the client-go auth plugins are linked
// in, server-side apply and managedFields name the manager "helm" whatever
// the binary is called, and a command's own exit code is kept.
package main

import (
	"errors"
	"log/slog"
	"os"

	helmcmd "helm.sh/helm/v4/pkg/cmd"
	"helm.sh/helm/v4/pkg/kube"
	_ "k8s.io/client-go/plugin/pkg/client/auth"
)

func main() {
	kube.ManagedFieldsManager = "helm"

	command, err := helmcmd.NewRootCmd(os.Stdout, os.Args[1:], helmcmd.SetupLogging)
	if err != nil {
		slog.Warn("command failed", slog.Any("error", err))
		os.Exit(1)
	}
	if err := command.Execute(); err != nil {
		if cerr, ok := errors.AsType[helmcmd.CommandError](err); ok {
			os.Exit(cerr.ExitCode)
		}
		os.Exit(1)
	}
}
