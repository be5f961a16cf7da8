// Package workload runs the bench tool's workloads (create, get, update,
// list, watch, mixed, delete) against any Kubernetes API server through
// client-go and the public API only, and turns each measured step into a
// result.Phase.
//
// Workloads share one namespace and its ConfigMaps cm-00000...: create
// makes them, the others use them, delete removes them. A workload that
// needs objects that are not there creates them first, unmeasured.
package workload

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/bench/proc"
	"github.com/kapi-dev/kapi/internal/bench/result"
	"github.com/kapi-dev/kapi/internal/bench/stats"
)

// Names are the workloads in their default order.
var Names = []string{"create", "get", "update", "list", "watch", "mixed", "delete"}

// LabelKey labels every object the tool creates with its run id, so a
// namespace the tool did not create can be cleaned of exactly its objects.
const LabelKey = "kapi-bench"

// Config holds the workloads' knobs.
type Config struct {
	Objects  int           // ConfigMaps to create
	Workers  int           // concurrent clients of create/get/update/delete/mixed
	Size     int           // bytes of data per ConfigMap
	Watchers int           // watchers of the watch workload
	Rate     float64       // updates per second of the watch workload
	Duration time.Duration // length of the watch and mixed workloads
	// ListRepeats is how many times each list phase runs (median reported).
	ListRepeats int
	// PageSize is the limit of list/paged.
	PageSize int64
	// WatchGrace is how long watchers may take to catch up after the
	// writer stops before missing events count as lost.
	WatchGrace time.Duration
	// RelistInterval is how often mixed's informer relists.
	RelistInterval time.Duration
	// PID is the server's process id (0: do not sample it).
	PID int
	// Server and Backend label every phase.
	Server, Backend string
}

// Defaults returns the defaults of `kapi bench`.
func Defaults() Config {
	return Config{
		Objects: 10000, Workers: 16, Size: 1024, Watchers: 200, Rate: 100,
		Duration: 30 * time.Second, ListRepeats: 3, PageSize: 500,
		WatchGrace: 10 * time.Second, RelistInterval: 5 * time.Second,
	}
}

// Validate names the first knob that makes no sense.
func (c Config) Validate() error {
	checks := []struct {
		ok   bool
		flag string
	}{
		{c.Objects > 0, "--objects must be positive"},
		{c.Workers > 0, "--workers must be positive"},
		{c.Size >= 0, "--size must not be negative"},
		{c.Watchers > 0, "--watchers must be positive"},
		{c.Rate > 0, "--rate must be positive"},
		{c.Duration > 0, "--duration must be positive"},
		{c.ListRepeats > 0, "--list-repeats must be positive"},
		{c.PageSize > 0, "page size must be positive"},
		{c.PID >= 0, "--pid must not be negative"},
	}
	for _, ch := range checks {
		if !ch.ok {
			return fmt.Errorf("%s", ch.flag)
		}
	}
	return nil
}

// CheckNames rejects unknown workload names.
func CheckNames(names []string) error {
	for _, n := range names {
		if !slices.Contains(Names, n) {
			return fmt.Errorf("unknown workload %q: use one of %v", n, Names)
		}
	}
	return nil
}

// Runner runs workloads in one namespace and emits their phases.
type Runner struct {
	cfg      Config
	c        *Clients
	ns       string
	runID    string
	emit     func(result.Phase)
	progress *Progress
	// have is whether the N objects are believed to exist.
	have bool
}

// NewRunner returns a Runner for namespace ns. emit is called with every
// phase as soon as it is measured; progress may be nil.
func NewRunner(cfg Config, c *Clients, ns, runID string, emit func(result.Phase), progress *Progress) *Runner {
	if progress == nil {
		progress = NewProgress(nil, false)
	}
	return &Runner{cfg: cfg, c: c, ns: ns, runID: runID, emit: emit, progress: progress}
}

// Run runs one workload by name.
func (r *Runner) Run(ctx context.Context, name string) error {
	run := map[string]func(context.Context) error{
		"create": r.create,
		"get":    r.get,
		"update": r.update,
		"list":   r.list,
		"watch":  r.watch,
		"mixed":  r.mixed,
		"delete": r.delete,
	}[name]
	if run == nil {
		return CheckNames([]string{name})
	}
	if err := run(ctx); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// name is the i-th object's name.
func name(i int) string { return fmt.Sprintf("cm-%05d", i) }

// object is the i-th ConfigMap as created.
func (r *Runner) object(i int) *corev1.ConfigMap {
	data := make([]byte, r.cfg.Size)
	for j := range data {
		data[j] = 'a' + byte((i+j)%26)
	}
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name(i), Labels: map[string]string{LabelKey: r.runID}},
		Data:       map[string]string{"data": string(data)},
	}
}

// measurement is a phase being measured.
type measurement struct {
	r       *Runner
	phase   result.Phase
	sampler *proc.Sampler
}

// begin starts measuring a phase: its clock and, with a PID, the server.
func (r *Runner) begin(workload, phase string, params map[string]any) *measurement {
	m := &measurement{r: r, phase: result.Phase{
		Server: r.cfg.Server, Backend: r.cfg.Backend,
		Workload: workload, Phase: phase, Start: time.Now(), Params: params,
	}}
	if r.cfg.PID > 0 {
		// A server the tool cannot read just goes without numbers.
		m.sampler, _ = proc.Start(r.cfg.PID, proc.DefaultInterval)
	}
	return m
}

// stopServer ends sampling the server, for ops operations.
func (m *measurement) stopServer(ops int64) *result.Process {
	if m.sampler == nil {
		return nil
	}
	return m.sampler.Stop(ops)
}

// finish fills in the numbers common to every phase and emits it.
func (m *measurement) finish(ops int64, seconds float64, lat *stats.Samples, errs *ErrorCounts) result.Phase {
	p := m.phase
	p.Ops, p.Seconds = ops, seconds
	if seconds > 0 {
		p.OpsPerSec = float64(ops) / seconds
	}
	if lat != nil {
		p.Latency = lat.Latency()
	}
	if errs != nil {
		p.Errors = errs.Map()
	}
	p.ServerProcess = m.stopServer(ops)
	return p
}

func (r *Runner) crudParams() map[string]any {
	return map[string]any{"objects": r.cfg.Objects, "workers": r.cfg.Workers, "size": r.cfg.Size}
}
