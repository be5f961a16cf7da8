package cli

import (
	"errors"
	"log/slog"
	"os"

	"github.com/kapi-dev/kapi/internal/controlplane"
	"github.com/kapi-dev/kapi/internal/server"
)

// debugOptions are kube-apiserver's profiling flags, with its names and
// defaults.
type debugOptions struct {
	Profiling           bool
	ContentionProfiling bool
}

func defaultDebugOptions() debugOptions {
	return debugOptions{Profiling: true}
}

func (o *debugOptions) addFlags(sets *namedFlagSets) {
	fs := sets.FlagSet("features")
	fs.BoolVar(&o.Profiling, "profiling", o.Profiling, "Enable profiling via web interface host:port/debug/pprof/ (and /debug/flags/v to change the log verbosity), for users authorized for those non-resource URLs.")
	fs.BoolVar(&o.ContentionProfiling, "contention-profiling", o.ContentionProfiling, "Enable block profiling, if profiling is enabled.")
}

// validate refuses --contention-profiling without --profiling: nothing
// would serve the block profile it records (upstream ignores it).
func (o *debugOptions) validate() []error {
	if o.ContentionProfiling && !o.Profiling {
		return []error{errors.New("--contention-profiling needs --profiling")}
	}
	return nil
}

func (o *debugOptions) fill(c *controlplane.Config) {
	c.DisableProfiling = !o.Profiling
	c.ContentionProfiling = o.ContentionProfiling
}

// newRuntimeLogger is newLogger on a verbosity that /debug/flags/v can
// change while the server runs.
func newRuntimeLogger(v int) (*slog.Logger, *server.Verbosity) {
	vb := server.NewVerbosity(v)
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: vb})), vb
}
