package server

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync"

	"github.com/kapi-dev/kapi/internal/server/healthz"
)

// GenericServer is one server of the chain. Build it with Config.New,
// register routes on Handler.APIMux and Handler.NonAPIMux, hooks and checks,
// then call PrepareRun on the outermost server.
type GenericServer struct {
	// Handler routes this server's requests.
	Handler *APIServerHandler

	name     string
	config   *Config // completed private copy
	logger   *slog.Logger
	delegate DelegationTarget

	prepareOnce    sync.Once
	preparedServer *PreparedServer

	mu               sync.Mutex
	prepared         bool
	postStartHooks   map[string]*postStartHook
	preShutdownHooks map[string]PreShutdownHookFunc
	healthzChecks    []healthz.Check
	livezChecks      []healthz.Check
	readyzChecks     []healthz.Check
}

var _ DelegationTarget = (*GenericServer)(nil)

// New builds a server named name (used in logs) that hands what it does not
// serve to delegate; use NewNotFoundDelegate for the last server.
func (c *Config) New(name string, delegate DelegationTarget) (*GenericServer, error) {
	if delegate == nil {
		return nil, errors.New("server: New needs a delegate; use NewNotFoundDelegate() to end the chain")
	}
	cfg := c.complete()
	if err := cfg.validateLifecycle(); err != nil {
		return nil, fmt.Errorf("server %s: %w", name, err)
	}
	logger := cfg.Logger.With("server", name)
	cfg.Logger = logger
	s := &GenericServer{
		name:             name,
		config:           cfg,
		logger:           logger,
		delegate:         delegate,
		postStartHooks:   map[string]*postStartHook{},
		preShutdownHooks: map[string]PreShutdownHookFunc{},
	}
	chain := func(h http.Handler) http.Handler { return cfg.BuildHandlerChainFunc(h, cfg) }
	s.Handler = newAPIServerHandler(name, logger, delegate.UnprotectedHandler(), chain)
	ping := healthz.PingCheck{}
	s.healthzChecks = []healthz.Check{ping}
	s.livezChecks = []healthz.Check{ping}
	s.readyzChecks = []healthz.Check{ping}
	return s, nil
}

// Name returns the server's name.
func (s *GenericServer) Name() string { return s.name }

// UnprotectedHandler implements DelegationTarget: the Director, no filters.
func (s *GenericServer) UnprotectedHandler() http.Handler { return s.Handler.Director }

// NextDelegate implements DelegationTarget.
func (s *GenericServer) NextDelegate() DelegationTarget { return s.delegate }

// ListedPaths implements DelegationTarget: this server's own paths.
func (s *GenericServer) ListedPaths() []string { return s.Handler.ListedPaths() }

// HealthzChecks implements DelegationTarget.
func (s *GenericServer) HealthzChecks() []healthz.Check { return s.checks(&s.healthzChecks) }

// LivezChecks implements DelegationTarget.
func (s *GenericServer) LivezChecks() []healthz.Check { return s.checks(&s.livezChecks) }

// ReadyzChecks implements DelegationTarget.
func (s *GenericServer) ReadyzChecks() []healthz.Check { return s.checks(&s.readyzChecks) }

func (s *GenericServer) checks(list *[]healthz.Check) []healthz.Check {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(*list)
}

// AddHealthChecks adds checks to /healthz, /livez and /readyz.
func (s *GenericServer) AddHealthChecks(checks ...healthz.Check) error {
	return s.addChecks(checks, &s.healthzChecks, &s.livezChecks, &s.readyzChecks)
}

// AddLivezChecks adds checks to /livez only: failing them means the process
// should be restarted.
func (s *GenericServer) AddLivezChecks(checks ...healthz.Check) error {
	return s.addChecks(checks, &s.livezChecks)
}

// AddReadyzChecks adds checks to /readyz only: failing them means the
// server should get no traffic for now.
func (s *GenericServer) AddReadyzChecks(checks ...healthz.Check) error {
	return s.addChecks(checks, &s.readyzChecks)
}

// addChecks appends to each list; the handlers are built from fixed lists
// at PrepareRun, so later additions are refused rather than lost.
func (s *GenericServer) addChecks(checks []healthz.Check, lists ...*[]healthz.Check) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.prepared {
		return errors.New("unable to add health checks: the server chain was already prepared to run")
	}
	for _, list := range lists {
		for _, c := range checks {
			if slices.ContainsFunc(*list, func(e healthz.Check) bool { return e.Name() == c.Name() }) {
				return fmt.Errorf("health check %q is already registered", c.Name())
			}
		}
	}
	for _, list := range lists {
		*list = append(*list, checks...)
	}
	return nil
}

// markPrepared freezes hooks and checks: the chain's handlers were built
// from them.
func (s *GenericServer) markPrepared() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prepared = true
}
