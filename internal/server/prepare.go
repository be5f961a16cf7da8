package server

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/server/healthz"
)

// PreparedServer is a server chain ready to Run: its health, version and
// index endpoints installed and the hooks of every server gathered.
type PreparedServer struct {
	s                *GenericServer
	postStartHooks   []namedHook[PostStartHookFunc]
	preShutdownHooks []namedHook[PreShutdownHookFunc]
	signals          lifecycleSignals
	runOnce          sync.Once
}

type namedHook[F any] struct {
	name string
	fn   F
}

// PrepareRun completes the chain that starts at s (call it on the outermost
// server only): it installs /healthz, /livez and /readyz with the checks of
// every server, /version when the Config has a Version, and the index at
// "/", and freezes hooks and checks. Calling it again returns the same
// PreparedServer.
func (s *GenericServer) PrepareRun() *PreparedServer {
	s.prepareOnce.Do(func() {
		chain := delegationChain(s)
		for _, d := range chain {
			if g, ok := d.(*GenericServer); ok {
				g.markPrepared()
			}
		}
		p := &PreparedServer{s: s, signals: newLifecycleSignals()}
		p.postStartHooks = mergeHooks(s.logger, "post-start", chain, DelegationTarget.PostStartHooks)
		p.preShutdownHooks = mergeHooks(s.logger, "pre-shutdown", chain, DelegationTarget.PreShutdownHooks)
		s.installHealthEndpoints(chain, p.signals.shutdownInitiated.done())
		s.installVersion()
		s.installDebug()
		s.installIndex(chain)
		s.preparedServer = p
	})
	return s.preparedServer
}

// Handler returns the full filter chain of the prepared server, for tests
// that serve it in-process.
func (p *PreparedServer) Handler() http.Handler { return p.s.Handler }

// installHealthEndpoints serves the merged checks; /readyz also fails from
// the moment shutdown begins.
func (s *GenericServer) installHealthEndpoints(chain []DelegationTarget, shutdownInitiated <-chan struct{}) {
	nonAPI := s.Handler.NonAPIMux
	healthz.InstallHandler(nonAPI, "/healthz", s.logger, mergeChecks(chain, DelegationTarget.HealthzChecks)...)
	healthz.InstallHandler(nonAPI, "/livez", s.logger, mergeChecks(chain, DelegationTarget.LivezChecks)...)
	readyz := append(mergeChecks(chain, DelegationTarget.ReadyzChecks), healthz.ShutdownCheck(shutdownInitiated))
	healthz.InstallHandler(nonAPI, "/readyz", s.logger, readyz...)
}

func (s *GenericServer) installVersion() {
	v := s.config.Version
	if v == nil {
		return
	}
	s.Handler.NonAPIMux.Handle("/version", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeRawJSON(w, http.StatusOK, v)
	}))
}

// installIndex serves the listed paths of the whole chain at "/", read at
// request time because custom resources add paths while serving.
func (s *GenericServer) installIndex(chain []DelegationTarget) {
	index := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		var paths []string
		for _, d := range chain {
			paths = append(paths, d.ListedPaths()...)
		}
		sort.Strings(paths)
		writeRawJSON(w, http.StatusOK, metav1.RootPaths{Paths: slices.Compact(paths)})
	})
	s.Handler.NonAPIMux.UnlistedHandle("/", index)
	s.Handler.NonAPIMux.UnlistedHandle("/index.html", index)
}

// mergeHooks gathers one kind of hook across chain. On a name used by two
// servers the innermost wins: for post-start hooks that is the server whose
// health check mergeChecks keeps. The result is sorted by name.
func mergeHooks[F any](logger *slog.Logger, kind string, chain []DelegationTarget, hooksOf func(DelegationTarget) map[string]F) []namedHook[F] {
	merged := map[string]F{}
	for i := len(chain) - 1; i >= 0; i-- {
		for name, fn := range hooksOf(chain[i]) {
			if _, dup := merged[name]; dup {
				logger.Warn("hook registered by two servers; keeping the inner one", "kind", kind, "hook", name)
				continue
			}
			merged[name] = fn
		}
	}
	hooks := make([]namedHook[F], 0, len(merged))
	for name, fn := range merged {
		hooks = append(hooks, namedHook[F]{name, fn})
	}
	slices.SortFunc(hooks, func(a, b namedHook[F]) int { return strings.Compare(a.name, b.name) })
	return hooks
}

// writeRawJSON writes v indented, as kube-apiserver writes /version and
// the index.
func writeRawJSON(w http.ResponseWriter, code int, v any) {
	body, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		http.Error(w, "internal error encoding response", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(body)
}
