package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"sync"

	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/internal/server/healthz"
)

// PostStartHookContext is what a post-start hook gets.
type PostStartHookContext struct {
	// Context ends when the server begins shutting down; a hook that starts
	// controllers ties them to it.
	Context context.Context
	// LoopbackClientConfig reaches this server as a privileged client.
	LoopbackClientConfig *rest.Config
}

// PostStartHookFunc runs once the server is serving. It must return
// promptly (start goroutines for long work); until it returns nil its health
// check "poststarthook/<name>" fails, so the server is not ready.
type PostStartHookFunc func(PostStartHookContext) error

// PreShutdownHookFunc runs once shutdown begins, while the server still
// serves requests (for example to remove this server from an endpoints
// list).
type PreShutdownHookFunc func() error

// errHookNotFinished is upstream's text for a hook still running.
var errHookNotFinished = errors.New("not finished")

// postStartHook is a registered hook and its completion, which its health
// check reports.
type postStartHook struct {
	name string
	fn   PostStartHookFunc

	mu   sync.Mutex
	done bool
	err  error
}

// run calls the hook, turning a panic into an error, and records the
// outcome. It is what PostStartHooks hands out, so that whichever server of
// the chain runs the hook, this server's check sees the result.
func (h *postStartHook) run(ctx PostStartHookContext) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic in post-start hook %q: %v\n%s", h.name, v, debug.Stack())
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		h.done = err == nil
		h.err = err
	}()
	return h.fn(ctx)
}

func (h *postStartHook) check() healthz.Check {
	return healthz.NamedCheck("poststarthook/"+h.name, func(*http.Request) error {
		h.mu.Lock()
		defer h.mu.Unlock()
		switch {
		case h.done:
			return nil
		case h.err != nil:
			return fmt.Errorf("failed: %w", h.err)
		default:
			return errHookNotFinished
		}
	})
}

// AddPostStartHook registers fn under name, with a health check
// "poststarthook/<name>" on /healthz, /livez and /readyz. Names are unique
// within a server, and hooks cannot be added once the chain was prepared.
func (s *GenericServer) AddPostStartHook(name string, fn PostStartHookFunc) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, dup := s.postStartHooks[name]
	if err := s.checkNewHookLocked("post-start", name, fn == nil, dup); err != nil {
		return err
	}
	h := &postStartHook{name: name, fn: fn}
	s.postStartHooks[name] = h
	c := h.check()
	s.healthzChecks = append(s.healthzChecks, c)
	s.livezChecks = append(s.livezChecks, s.livezGrace(c))
	s.readyzChecks = append(s.readyzChecks, c)
	return nil
}

// AddPostStartHookOrDie is AddPostStartHook for start-up code, where a
// failure is a programming error.
func (s *GenericServer) AddPostStartHookOrDie(name string, fn PostStartHookFunc) {
	if err := s.AddPostStartHook(name, fn); err != nil {
		panic(err)
	}
}

// AddPreShutdownHook registers fn under name, unique within a server.
func (s *GenericServer) AddPreShutdownHook(name string, fn PreShutdownHookFunc) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, dup := s.preShutdownHooks[name]
	if err := s.checkNewHookLocked("pre-shutdown", name, fn == nil, dup); err != nil {
		return err
	}
	s.preShutdownHooks[name] = fn
	return nil
}

// checkNewHookLocked says why a hook of kind cannot be added, if it cannot.
func (s *GenericServer) checkNewHookLocked(kind, name string, nilFunc, duplicate bool) error {
	switch {
	case name == "":
		return fmt.Errorf("%s hook needs a name", kind)
	case nilFunc:
		return fmt.Errorf("%s hook %q: nil function", kind, name)
	case s.prepared:
		return fmt.Errorf("unable to add %s hook %q: the server chain was already prepared to run", kind, name)
	case duplicate:
		return fmt.Errorf("%s hook %q is already registered", kind, name)
	}
	return nil
}

// PostStartHooks implements DelegationTarget.
func (s *GenericServer) PostStartHooks() map[string]PostStartHookFunc {
	s.mu.Lock()
	defer s.mu.Unlock()
	hooks := make(map[string]PostStartHookFunc, len(s.postStartHooks))
	for name, h := range s.postStartHooks {
		hooks[name] = h.run
	}
	return hooks
}

// PreShutdownHooks implements DelegationTarget.
func (s *GenericServer) PreShutdownHooks() map[string]PreShutdownHookFunc {
	s.mu.Lock()
	defer s.mu.Unlock()
	hooks := make(map[string]PreShutdownHookFunc, len(s.preShutdownHooks))
	for name, fn := range s.preShutdownHooks {
		hooks[name] = fn
	}
	return hooks
}
