package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kapi-dev/kapi/internal/bench/output"
	"github.com/kapi-dev/kapi/internal/bench/result"
	"github.com/kapi-dev/kapi/internal/bench/workload"
)

// Limits of the calls around the workloads.
const (
	reachTimeout   = 10 * time.Second
	cleanupTimeout = 60 * time.Second
)

// benchOptions are the flags of `kapi bench`.
type benchOptions struct {
	workload.Config
	Kubeconfig  string
	Context     string
	Namespace   string
	Output      string
	QPS         float32
	Burst       int
	ResultsFile string
	// Compare: the arguments are two results files to compare, not
	// workloads (bench_compare.go).
	Compare bool
}

func newBenchOptions() *benchOptions {
	return &benchOptions{Config: workload.Defaults(), Output: "table", QPS: 10000, Burst: 10000}
}

func (o *benchOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Kubeconfig, "kubeconfig", "", "Kubeconfig of the server to measure (default $KUBECONFIG, then ~/.kube/config).")
	fs.StringVar(&o.Context, "context", "", "Kubeconfig context to use.")
	fs.StringVarP(&o.Namespace, "namespace", "n", "", "Namespace to work in (default: a new kapi-bench-<id>, deleted at the end).")
	fs.StringVarP(&o.Output, "output", "o", o.Output, "Output format: table or json (one result.Phase per line).")
	fs.IntVar(&o.Objects, "objects", o.Objects, "ConfigMaps to create.")
	fs.IntVar(&o.Workers, "workers", o.Workers, "Concurrent clients of create, get, update, delete and mixed.")
	fs.IntVar(&o.Size, "size", o.Size, "Bytes of data per ConfigMap.")
	fs.IntVar(&o.Watchers, "watchers", o.Watchers, "Watchers of the watch workload.")
	fs.Float64Var(&o.Rate, "rate", o.Rate, "Updates per second during the watch workload.")
	fs.DurationVar(&o.Duration, "duration", o.Duration, "Length of the watch and mixed workloads.")
	fs.IntVar(&o.ListRepeats, "list-repeats", o.ListRepeats, "Times each list phase runs (the median is reported).")
	fs.IntVar(&o.PID, "pid", 0, "Process id of the server, to report its CPU and RSS (same machine only).")
	fs.StringVar(&o.Server, "server", "", "Label of the server measured (e.g. kapi, kube-apiserver), copied into every phase.")
	fs.StringVar(&o.Backend, "backend", "", "Label of the server's storage backend (e.g. memory, etcd), copied into every phase.")
	fs.Float32Var(&o.QPS, "qps", o.QPS, "Client-side QPS limit (high: a bench must not be throttled by its client).")
	fs.IntVar(&o.Burst, "burst", o.Burst, "Client-side burst limit.")
	fs.StringVar(&o.ResultsFile, "results-file", "", "Append the phases to this results file, creating it.")
	fs.BoolVar(&o.Compare, "compare", false, "Run nothing: compare two results files A B (results files or --output json lines), printing every figure of both and the ratio B/A.")
}

// Validate checks the flags and the workload names.
func (o *benchOptions) Validate(workloads []string) error {
	if o.Output != "table" && o.Output != "json" {
		return fmt.Errorf("--output %q is not supported: use table or json", o.Output)
	}
	if o.QPS <= 0 || o.Burst <= 0 {
		return errors.New("--qps and --burst must be positive")
	}
	if err := o.Config.Validate(); err != nil {
		return err
	}
	return workload.CheckNames(workloads)
}

func newBenchCommand() *cobra.Command {
	o := newBenchOptions()
	cmd := &cobra.Command{
		Use:   "bench [workloads...]",
		Short: "Measure any Kubernetes API server with standard workloads",
		Long: `Runs workloads against the server of a kubeconfig, through client-go and the
public API only, so any conformant server can be measured the same way.

Workloads (default: all, in this order): ` + strings.Join(workload.Names, " ") + `.
They run in the order given and share the namespace's ConfigMaps; a workload
that needs objects creates them first, unmeasured. The namespace the tool
creates is deleted at the end, also on failure and on Ctrl-C.`,
		Example: `  kapi bench --kubeconfig admin.kubeconfig --pid $(pgrep -n kapi) --server kapi --backend memory
  kapi bench create list --objects 1000 -o json
  kapi bench --compare kube-apiserver.jsonl bench/results/2026-08-01.json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.Compare {
				return runCompare(cmd.OutOrStdout(), args)
			}
			if len(args) == 0 {
				args = workload.Names
			}
			if err := o.Validate(args); err != nil {
				return fmt.Errorf("kapi bench: %w", err)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if err := runBench(ctx, o, args, cmd.OutOrStdout(), cmd.ErrOrStderr()); err != nil {
				return fmt.Errorf("kapi bench: %w", err)
			}
			return nil
		},
	}
	o.AddFlags(cmd.Flags())
	cmd.AddCommand(newBenchReportCommand(), newBenchStartupCommand())
	return cmd
}

// restConfig loads the kubeconfig with kubectl's rules.
func (o *benchOptions) restConfig() (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = o.Kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules,
		&clientcmd.ConfigOverrides{CurrentContext: o.Context}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	cfg.QPS, cfg.Burst = o.QPS, o.Burst
	cfg.UserAgent = "kapi-bench"
	return cfg, nil
}

// runBench checks the server, prepares the namespace, runs the workloads
// and cleans up whatever happened.
func runBench(ctx context.Context, o *benchOptions, workloads []string, stdout, stderr io.Writer) (err error) {
	cfg, err := o.restConfig()
	if err != nil {
		return err
	}
	if err := checkReachable(ctx, cfg); err != nil {
		return err
	}
	clients, err := workload.NewClients(cfg)
	if err != nil {
		return err
	}
	runID := workload.NewRunID()
	ns, err := workload.SetupNamespace(ctx, clients.JSON, o.Namespace, runID)
	if err != nil {
		return err
	}
	defer func() {
		// A fresh context: the run's may be cancelled by Ctrl-C.
		cctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
		defer cancel()
		err = errors.Join(err, ns.Cleanup(cctx, clients.JSON))
	}()

	var phases []result.Phase
	progress := workload.NewProgress(stderr, isTerminal(stderr))
	emit := func(p result.Phase) {
		phases = append(phases, p)
		if o.Output == "json" {
			_ = result.WritePhase(stdout, p)
		}
	}
	r := workload.NewRunner(o.Config, clients, ns.Name, runID, emit, progress)
	for _, name := range workloads {
		first := len(phases)
		runErr := r.Run(ctx, name)
		if o.Output == "table" && len(phases) > first {
			_ = output.WriteTable(stdout, phases[first:])
		}
		if ctx.Err() != nil {
			runErr = errors.New("interrupted")
		}
		if runErr != nil {
			return errors.Join(runErr, appendResults(o.ResultsFile, phases))
		}
	}
	return appendResults(o.ResultsFile, phases)
}

// checkReachable asks the server its version with a short timeout, so an
// unreachable server is one clear line rather than a stuck workload.
func checkReachable(ctx context.Context, cfg *rest.Config) error {
	c := rest.CopyConfig(cfg)
	c.Timeout = reachTimeout
	cs, err := kubernetes.NewForConfig(c)
	if err != nil {
		return err
	}
	if _, err := cs.Discovery().ServerVersion(); err != nil {
		return fmt.Errorf("server %s: %s", cfg.Host, reachError(err))
	}
	return ctx.Err()
}

// reachError shortens a failed request's error to its cause: "connection
// refused", not the URL and dial details around it.
func reachError(err error) string {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return err.Error()
	}
	var se *os.SyscallError
	if errors.As(ue.Err, &se) {
		return se.Err.Error()
	}
	var oe *net.OpError
	if errors.As(ue.Err, &oe) {
		return oe.Err.Error()
	}
	if ue.Timeout() {
		return "no answer within " + reachTimeout.String()
	}
	return ue.Err.Error()
}

// appendResults adds phases to the results file at path (none: nothing).
func appendResults(path string, phases []result.Phase) error {
	if path == "" || len(phases) == 0 {
		return nil
	}
	f, err := result.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		f, err = &result.File{Date: time.Now().UTC(), Machine: thisMachine()}, nil
	}
	if err != nil {
		return err
	}
	f.Phases = append(f.Phases, phases...)
	if err := result.WriteFile(path, f); err != nil {
		return fmt.Errorf("results file: %w", err)
	}
	return nil
}

func thisMachine() result.Machine {
	m := result.Machine{CPUs: runtime.NumCPU(), OS: runtime.GOOS, Arch: runtime.GOARCH, GoVersion: runtime.Version()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.Lines(string(b)) {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	}
	return m
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
