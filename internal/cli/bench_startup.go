package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/kapi-dev/kapi/internal/bench/result"
	"github.com/kapi-dev/kapi/internal/bench/startup"
)

func newBenchStartupCommand() *cobra.Command {
	c := startup.Config{Runs: 5, Server: "kapi", Backend: "memory"}
	var output string
	cmd := &cobra.Command{
		Use:   "startup --binary PATH [--runs 5] [-- server args...]",
		Short: "Measure the time from exec to /readyz 200, and RSS when ready, of a server binary",
		Long: `Starts the server binary several times, each in a fresh temporary directory
on a free port, polls its /readyz every 5ms from exec, records the time to
the first 200 and the resident memory at that moment, and stops it with
SIGTERM. It prints the median, min and max over the runs.

Without server args it starts kapi: serve --storage-backend <backend>
--data-dir <tmp> --bind-address 127.0.0.1 --secure-port <free port>, and
asks /readyz with the admin kubeconfig kapi writes there. For another
server pass its args after "--"; "{port}" and "{dir}" in the args,
--ready-url and --ready-kubeconfig become the free port and the temporary
directory of each run.`,
		Example: `  kapi bench startup --binary bin/kapi --backend etcd3
  kapi bench startup --binary ./kube-apiserver --server kube-apiserver --backend etcd \
    --ready-url https://127.0.0.1:{port}/readyz -- --secure-port {port} --etcd-servers http://127.0.0.1:2379 ...`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "" && output != "json" {
				return fmt.Errorf("--output %q is not supported: use \"json\" or leave it empty", output)
			}
			c.Args = args
			c.Progress = cmd.ErrOrStderr()
			p, err := startup.Run(cmd.Context(), c)
			if err != nil {
				return err
			}
			if output == "json" {
				return result.WritePhase(cmd.OutOrStdout(), p)
			}
			e := p.Extra
			fmt.Fprintf(cmd.OutOrStdout(), "%s/%s startup over %d runs: ready median %.0f ms (min %.0f, max %.0f), RSS median %.1f MB\n",
				p.Server, p.Backend, p.Ops, e["readyMsMedian"], e["readyMsMin"], e["readyMsMax"], e["rssBytesMedian"]/(1<<20))
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&c.Binary, "binary", c.Binary, "The server binary to start (required).")
	fs.IntVar(&c.Runs, "runs", c.Runs, "How many times to start the server.")
	fs.StringVar(&c.Server, "server", c.Server, "The server's name in the results.")
	fs.StringVar(&c.Backend, "backend", c.Backend, "The storage backend: kapi's --storage-backend without server args, else only a label.")
	fs.StringVar(&c.ReadyURL, "ready-url", c.ReadyURL, "The readiness URL to poll (default https://127.0.0.1:{port}/readyz).")
	fs.StringVar(&c.Kubeconfig, "ready-kubeconfig", c.Kubeconfig, "A kubeconfig whose credentials the readiness poll uses once the file exists (default for kapi {dir}/admin.kubeconfig).")
	fs.DurationVar(&c.Timeout, "timeout", 2*time.Minute, "How long each run may take to become ready.")
	fs.StringVarP(&output, "output", "o", output, "Output format: '' (a line for people) or 'json' (one result phase).")
	return cmd
}
