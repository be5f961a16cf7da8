package cli

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kapi-dev/kapi/internal/version"
)

func newVersionCommand() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version of kapi and of the Kubernetes API it serves",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			info := version.Get()
			switch output {
			case "":
				commit := info.GitCommit
				if commit == "" {
					commit = "unknown"
				}
				fmt.Fprintf(cmd.OutOrStdout(), "kapi %s (commit %s, %s, %s)\n", info.GitVersion, commit, info.GoVersion, info.Platform)
			case "json":
				b, err := json.MarshalIndent(info, "", "  ")
				if err != nil {
					return err
				}
				fmt.Fprintln(cmd.OutOrStdout(), string(b))
			default:
				return fmt.Errorf("--output %q is not supported: use \"json\" or leave it empty", output)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "Output format: '' or 'json'.")
	return cmd
}
