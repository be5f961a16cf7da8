package controlplane

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/client-go/tools/record"

	"github.com/kapi-dev/kapi/internal/server"
)

// LeaderElectionConfig is kube-controller-manager's --leader-elect*: the
// in-process controllers run only while this server holds the Lease, so
// several kapi servers on one etcd, or kapi and an upstream
// kube-controller-manager, take turns instead of all acting at once.
type LeaderElectionConfig struct {
	// LeaderElect turns the lease on; off, the controllers run at once
	// (what a Config built in code gets).
	LeaderElect bool
	// LeaseDuration, RenewDeadline and RetryPeriod are upstream's; zero
	// means its defaults, 15s, 10s and 2s.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// ResourceNamespace and ResourceName name the Lease; empty means
	// kube-system/kube-controller-manager, the one upstream holds.
	ResourceNamespace, ResourceName string
	// Identity is who holds the lease; empty means upstream's
	// "<hostname>_<uuid>" (tests name their servers).
	Identity string
}

// Upstream's defaults (component-base's leader-election configuration).
const (
	DefaultLeaseDuration         = 15 * time.Second
	DefaultRenewDeadline         = 10 * time.Second
	DefaultRetryPeriod           = 2 * time.Second
	DefaultLeaderElectNamespace  = metav1.NamespaceSystem
	DefaultLeaderElectLeaseName  = "kube-controller-manager"
	leaderElectionUserAgentLabel = "leader-election"
)

// withDefaults fills what was left zero.
func (l LeaderElectionConfig) withDefaults() LeaderElectionConfig {
	if l.LeaseDuration == 0 {
		l.LeaseDuration = DefaultLeaseDuration
	}
	if l.RenewDeadline == 0 {
		l.RenewDeadline = DefaultRenewDeadline
	}
	if l.RetryPeriod == 0 {
		l.RetryPeriod = DefaultRetryPeriod
	}
	if l.ResourceNamespace == "" {
		l.ResourceNamespace = DefaultLeaderElectNamespace
	}
	if l.ResourceName == "" {
		l.ResourceName = DefaultLeaderElectLeaseName
	}
	return l
}

// Validate checks the durations as client-go's elector will.
func (l LeaderElectionConfig) Validate() error {
	d := l.withDefaults()
	if d.LeaseDuration <= d.RenewDeadline {
		return fmt.Errorf("--leader-elect-lease-duration (%v) must be greater than --leader-elect-renew-deadline (%v)", d.LeaseDuration, d.RenewDeadline)
	}
	if d.RenewDeadline <= time.Duration(leaderelection.JitterFactor*float64(d.RetryPeriod)) {
		return fmt.Errorf("--leader-elect-renew-deadline (%v) must be greater than %v × --leader-elect-retry-period (%v)", d.RenewDeadline, leaderelection.JitterFactor, d.RetryPeriod)
	}
	if d.RetryPeriod < 0 || d.LeaseDuration < 0 || d.RenewDeadline < 0 {
		return fmt.Errorf("leader election durations must be positive")
	}
	return nil
}

// leaderGate runs the controllers' start functions while this server
// leads. The post-start hooks only register their controller and return
// (a standby server is ready); the first hook starts the campaign, whose
// first try is immediate. When leadership is lost, the controllers'
// context ends and the server campaigns again; the API server goes on.
type leaderGate struct {
	cfg    LeaderElectionConfig
	logger *slog.Logger

	once        sync.Once
	campaignErr error         // why the campaign could not start
	done        chan struct{} // closed when the campaign loop has ended

	mu          sync.Mutex
	campaigning bool
	starts      []leaderStart
	leading     context.Context // set while leading
}

type leaderStart struct {
	name  string
	start func(context.Context) error
}

// newLeaderGate returns nil, meaning "start at once", when leader
// election is off.
func newLeaderGate(c *Config, logger *slog.Logger) *leaderGate {
	if !c.LeaderElection.LeaderElect {
		return nil
	}
	return &leaderGate{cfg: c.LeaderElection.withDefaults(), logger: logger.With("component", "leader-election"), done: make(chan struct{})}
}

// run starts the controller now (no gate), when leading, or when this
// server next leads.
func (g *leaderGate) run(hc server.PostStartHookContext, name string, start func(context.Context) error) error {
	if g == nil {
		return start(hc.Context)
	}
	g.once.Do(func() { g.campaignErr = g.campaign(hc) })
	if g.campaignErr != nil {
		return g.campaignErr
	}
	g.mu.Lock()
	g.starts = append(g.starts, leaderStart{name, start})
	leading := g.leading
	g.mu.Unlock()
	if leading != nil {
		g.startOne(leading, leaderStart{name, start})
	}
	return nil
}

func (g *leaderGate) startOne(ctx context.Context, s leaderStart) {
	if err := s.start(ctx); err != nil {
		g.logger.Error("starting a controller", "controller", s.name, "err", err)
	}
}

// campaign builds the elector and runs it until the server shuts down.
func (g *leaderGate) campaign(hc server.PostStartHookContext) error {
	cfg := rest.CopyConfig(hc.LoopbackClientConfig)
	cfg.UserAgent = "kapi/" + leaderElectionUserAgentLabel
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	id := g.cfg.Identity
	if id == "" {
		host, err := os.Hostname()
		if err != nil {
			return fmt.Errorf("leader election identity: %w", err)
		}
		id = host + "_" + string(uuid.NewUUID())
	}
	// As upstream, "<id> became leader" and "<id> stopped leading" are
	// Events (reason LeaderElection) on the Lease, from
	// kube-controller-manager.
	broadcaster := record.NewBroadcaster(record.WithContext(context.WithoutCancel(hc.Context)))
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")})
	recorder := leaseEvents{ctx: hc.Context, recorder: broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "kube-controller-manager"})}
	lec := leaderelection.LeaderElectionConfig{
		Lock: &resourcelock.LeaseLock{
			LeaseMeta:  metav1.ObjectMeta{Namespace: g.cfg.ResourceNamespace, Name: g.cfg.ResourceName},
			Client:     client.CoordinationV1(),
			LockConfig: resourcelock.ResourceLockConfig{Identity: id, EventRecorder: recorder},
		},
		LeaseDuration:   g.cfg.LeaseDuration,
		RenewDeadline:   g.cfg.RenewDeadline,
		RetryPeriod:     g.cfg.RetryPeriod,
		ReleaseOnCancel: true,
		Name:            g.cfg.ResourceName,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: g.lead,
			OnStoppedLeading: g.stopped,
			OnNewLeader: func(holder string) {
				if holder != id {
					g.logger.Info("controllers wait: another instance leads", "lease", g.cfg.ResourceNamespace+"/"+g.cfg.ResourceName, "holder", holder)
				}
			},
		},
	}
	if _, err := leaderelection.NewLeaderElector(lec); err != nil {
		broadcaster.Shutdown()
		return err
	}
	g.mu.Lock()
	g.campaigning = true
	g.mu.Unlock()
	go func() {
		defer close(g.done)
		defer broadcaster.Shutdown()
		for hc.Context.Err() == nil {
			le, err := leaderelection.NewLeaderElector(lec)
			if err != nil {
				g.logger.Error("leader election", "err", err)
				return
			}
			le.Run(hc.Context)
		}
	}()
	return nil
}

// leaseEvents records the elector's events until the server shuts down:
// the "stopped leading" of a release at shutdown would be written after
// the server stopped serving, failing noisily.
type leaseEvents struct {
	ctx      context.Context
	recorder record.EventRecorder
}

func (l leaseEvents) Eventf(obj runtime.Object, eventType, reason, message string, args ...any) {
	if l.ctx.Err() == nil {
		l.recorder.Eventf(obj, eventType, reason, message, args...)
	}
}

// lead starts every controller registered so far; later ones start as
// their hook registers them.
func (g *leaderGate) lead(ctx context.Context) {
	g.mu.Lock()
	g.leading = ctx
	starts := append([]leaderStart(nil), g.starts...)
	g.mu.Unlock()
	g.logger.Info("leading: starting the controllers", "lease", g.cfg.ResourceNamespace+"/"+g.cfg.ResourceName, "controllers", len(starts))
	for _, s := range starts {
		g.startOne(ctx, s)
	}
}

// stopped runs when a campaign ends, led or not; the controllers' context
// has ended with it.
func (g *leaderGate) stopped() {
	g.mu.Lock()
	was := g.leading != nil
	g.leading = nil
	g.mu.Unlock()
	if was {
		g.logger.Info("leadership lost or released: controllers stopped")
	}
}

// awaitRelease waits (bounded) for the campaign to end after shutdown
// began, so the lease is released while the server still serves and a
// successor takes over at once.
func (g *leaderGate) awaitRelease() error {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	campaigning := g.campaigning
	g.mu.Unlock()
	if !campaigning {
		return nil
	}
	select {
	case <-g.done:
	case <-time.After(g.cfg.RenewDeadline):
	}
	return nil
}
