package cli

import (
	"fmt"
	"log/slog"

	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/internal/controlplane"
	"github.com/kapi-dev/kapi/internal/memlimit"
)

// memoryOptions hold --memory-limit, kapi's own: kube-apiserver leaves the
// Go runtime's limit to the GOMEMLIMIT environment variable.
type memoryOptions struct {
	MemoryLimit string
	limit       memlimit.Setting
}

func defaultMemoryOptions() memoryOptions {
	return memoryOptions{MemoryLimit: memlimit.Auto.String(), limit: memlimit.Auto}
}

func (o *memoryOptions) addFlags(sets *namedFlagSets) {
	sets.FlagSet("kapi").StringVar(&o.MemoryLimit, "memory-limit", o.MemoryLimit, "The Go runtime's soft memory limit for the process, as GOMEMLIMIT sets it: 'auto' keeps the garbage collector's headroom at half the live heap (which is mostly the cached objects), at least 64 MiB, re-derived after every collection and capped at 90% of the cgroup's memory limit; a quantity such as 512Mi or 2G sets a fixed limit; 'off' sets none. With 'auto' a GOMEMLIMIT environment variable is left in force.")
}

func (o *memoryOptions) validate() []error {
	s, err := memlimit.Parse(o.MemoryLimit)
	if err != nil {
		return []error{fmt.Errorf("--memory-limit: %w", err)}
	}
	o.limit = s
	return nil
}

// startMemoryLimit applies the limit to this process until stop is called,
// and the start-up collector target until cfg's server is ready. Neither
// is part of the server's Config: both are process-wide, and servers a
// test starts in-process must leave them alone.
func (o *memoryOptions) startMemoryLimit(logger *slog.Logger, cfg *controlplane.Config) (stop func()) {
	started := memlimit.StartupCollector(o.limit.Bounds(), logger)
	ready := cfg.Ready
	cfg.Ready = func(c *rest.Config) {
		started()
		if ready != nil {
			ready(c)
		}
	}
	return memlimit.Start(o.limit, logger)
}
