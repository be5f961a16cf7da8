package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/kapi-dev/kapi/internal/bench/report"
)

func newBenchReportCommand() *cobra.Command {
	var out, format, title string
	cmd := &cobra.Command{
		Use:   "report FILE... [-o chart.svg] [--format svg|markdown]",
		Short: "Draw bench results as an SVG chart or a markdown table",
		Long: `Reads results files (bench/results/*.json) and the JSON lines of
'kapi bench --output json', and draws one SVG with a panel per phase and
metric (throughput or duration, latency p50/p99, server CPU per op, RSS)
and a bar per series. A series is a server and backend, plus the file's
date when several files measured the same one. --format markdown prints
the same numbers as a table.`,
		Example: `  kapi bench report bench/results/2026-08-01.json -o chart.svg
  kapi bench --kubeconfig other.kubeconfig --server kube-apiserver --output json > k8s.jsonl
  kapi bench report bench/results/2026-08-01.json k8s.jsonl -o compare.svg`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			write, err := reportWriter(format, title)
			if err != nil {
				return err
			}
			inputs, err := report.Load(args...)
			if err != nil {
				return err
			}
			chart := report.Build(inputs)
			if out == "" || out == "-" {
				return write(cmd.OutOrStdout(), chart)
			}
			f, err := os.Create(out)
			if err != nil {
				return err
			}
			if err := write(f, chart); err != nil {
				f.Close()
				return err
			}
			return f.Close()
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "The file to write; empty or '-' for stdout.")
	cmd.Flags().StringVar(&format, "format", "svg", "Output format: 'svg' or 'markdown'.")
	cmd.Flags().StringVar(&title, "title", "kapi bench", "The chart's title.")
	return cmd
}

// reportWriter picks the renderer for --format.
func reportWriter(format, title string) (func(io.Writer, *report.Chart) error, error) {
	switch format {
	case "svg":
		return func(w io.Writer, c *report.Chart) error { return report.WriteSVG(w, c, title) }, nil
	case "markdown", "md":
		return report.WriteMarkdown, nil
	default:
		return nil, fmt.Errorf("--format %q is not supported: use \"svg\" or \"markdown\"", format)
	}
}
