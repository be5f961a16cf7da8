// Package cli holds kapi's command line: the cobra commands, the option
// groups of `kapi serve`, and their Complete/Validate steps.
package cli

import (
	"github.com/spf13/cobra"
)

// NewKapiCommand returns the root `kapi` command.
func NewKapiCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:           "kapi",
		Short:         "kapi is a Kubernetes API server in one small binary",
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help()
		},
	}
	cmd.AddCommand(newServeCommand(), newVersionCommand(), newBenchCommand(), newEnvtestAssetsCommand())
	return cmd
}
