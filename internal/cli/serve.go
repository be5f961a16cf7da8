package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/kapi-dev/kapi/internal/controlplane"
)

func newServeCommand() *cobra.Command {
	opts := NewServeOptions()
	sets := &namedFlagSets{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the API server",
		Long: `Run the kapi API server. With no flags it starts an embedded etcd in
./kapi-data, generates a CA, a serving certificate and an admin client
certificate there, writes ./kapi-data/admin.kubeconfig and serves the
Kubernetes API on https://127.0.0.1:6443.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			start := time.Now()
			if err := opts.Complete(); err != nil {
				return err
			}
			if err := opts.Validate(); err != nil {
				return fmt.Errorf("invalid flags:\n%w", err)
			}
			logger, verbosity := newRuntimeLogger(opts.Verbosity)
			ctx := signalContext(logger)
			cfg := opts.Config()
			defer opts.startMemoryLimit(logger, cfg)()
			cfg.Logger = logger
			cfg.Verbosity = verbosity
			cfg.Out = cmd.OutOrStdout()
			cfg.StartTime = start
			return controlplane.Run(ctx, cfg)
		},
	}
	opts.AddFlags(sets)
	opts.simulationOptions.addFlags(sets)
	sets.addTo(cmd.Flags())
	setSectionedUsage(cmd, sets)
	return cmd
}

// newLogger maps -v to slog levels: 0 info, 1-3 info, 4+ debug; below 0 warn.
func newLogger(v int) *slog.Logger {
	level := slog.LevelInfo
	switch {
	case v >= 4:
		level = slog.LevelDebug
	case v < 0:
		level = slog.LevelWarn
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
}

// signalContext is cancelled by the first SIGTERM or SIGINT, which starts a
// graceful shutdown; a second signal runs beforeExit, if given, and exits
// at once.
func signalContext(logger *slog.Logger, beforeExit ...func()) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		s := <-ch
		logger.Info("shutdown requested", "signal", s.String())
		cancel()
		s = <-ch
		logger.Warn("second signal, exiting now", "signal", s.String())
		for _, f := range beforeExit {
			f()
		}
		os.Exit(1)
	}()
	return ctx
}
