package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/utils/clock"
)

// ErrAlreadyRun is returned by a second call to Run.
var ErrAlreadyRun = errors.New("server: Run may be called only once")

// ReadyCh is closed once the server is serving and every post-start hook
// returned nil. A failed hook keeps it open (and /readyz failing); watch
// Run's result as well.
func (p *PreparedServer) ReadyCh() <-chan struct{} { return p.signals.ready.done() }

// Addr is the address the server listens on, nil without SecureServing.
func (p *PreparedServer) Addr() net.Addr {
	if ss := p.s.config.SecureServing; ss != nil && ss.Listener != nil {
		return ss.Listener.Addr()
	}
	return nil
}

// Run serves HTTPS on the configured listener and runs the chain's
// post-start hooks, until ctx ends. Then it terminates gracefully:
//
//  1. shutdown initiated: /readyz fails, the post-start hooks' context ends;
//  2. for ShutdownDelayDuration the server keeps serving so load balancers
//     notice, while the pre-shutdown hooks run;
//  3. the listener closes, new requests on open connections get 503, and
//     long-running requests (watches) have their contexts cancelled;
//  4. in-flight requests get up to ShutdownTimeout to finish, then the
//     remaining connections are closed.
//
// Run returns the errors of the pre-shutdown hooks, or the serving error if
// the listener failed.
func (p *PreparedServer) Run(ctx context.Context) error {
	err := ErrAlreadyRun
	p.runOnce.Do(func() { err = p.run(ctx) })
	return err
}

func (p *PreparedServer) run(ctx context.Context) error {
	cfg := p.s.config
	if cfg.SecureServing == nil || cfg.SecureServing.Listener == nil {
		return errors.New("server: Run needs SecureServing with a Listener")
	}
	running := newRunningHandlers()
	srv, err := newHTTPServer(cfg.SecureServing, running.wrap(p.Handler()), p.s.logger, cfg.Metrics)
	if err != nil {
		return fmt.Errorf("server %s: %w", p.s.name, err)
	}
	serveDone := make(chan error, 1)
	go func() { serveDone <- srv.ServeTLS(cfg.SecureServing.Listener, "", "") }()
	p.s.logger.Info("serving securely", "address", p.Addr().String())

	// The hooks outlive nothing: their context ends when shutdown begins.
	hookCtx, stopHooks := context.WithCancel(context.WithoutCancel(ctx))
	defer stopHooks()
	warmLoopback(ctx, cfg.LoopbackClientConfig, p.s.logger)
	hooksDone := p.startPostStartHooks(hookCtx)

	select {
	case <-ctx.Done():
	case err := <-serveDone:
		p.signals.shutdownInitiated.fire()
		stopHooks()
		p.awaitHooks(hooksDone)
		return fmt.Errorf("server %s: serving on %s failed: %w", p.s.name, p.Addr(), err)
	}
	return p.shutdown(srv, running, serveDone, stopHooks, hooksDone)
}

// shutdown runs the phases described on Run.
func (p *PreparedServer) shutdown(srv *http.Server, running *runningHandlers, serveDone <-chan error, stopHooks func(), hooksDone <-chan struct{}) error {
	cfg, log := p.s.config, p.s.logger
	wg := cfg.NonLongRunningRequestWaitGroup

	p.signals.shutdownInitiated.fire()
	log.Info("graceful termination: shutdown initiated", "shutdownDelay", cfg.ShutdownDelayDuration)
	stopHooks()

	// Upstream runs the pre-shutdown hooks during the delay: they may need
	// the API, which still serves, and the delay is time spent waiting
	// anyway.
	preShutdown := make(chan error, 1)
	go func() { preShutdown <- p.runPreShutdownHooks() }()
	if d := cfg.ShutdownDelayDuration; d > 0 {
		<-cfg.Clock.After(d)
	}
	hookErr := <-preShutdown

	drainCtx, cancelDrain := clockTimeout(cfg.Clock, cfg.ShutdownTimeout)
	defer cancelDrain()
	wg.Close()
	watchesCtx, stopWatches := p.stopWatches(drainCtx)
	defer stopWatches()
	shutdownDone := make(chan error, 1)
	closeListener := func() { go func() { shutdownDone <- srv.Shutdown(drainCtx) }() }
	if !cfg.ShutdownSendRetryAfter {
		closeListener()
	}
	p.signals.notAcceptingNewRequests.fire()
	log.Info("graceful termination: not accepting new requests", "inFlight", wg.InFlight())

	if err := wg.Wait(drainCtx); err != nil {
		log.Warn("graceful termination: in-flight requests did not finish in time",
			"inFlight", wg.InFlight(), "shutdownTimeout", cfg.ShutdownTimeout)
	} else {
		log.Info("graceful termination: in-flight requests drained")
	}
	if cfg.ShutdownSendRetryAfter {
		// Until now new requests were answered 429 on an open listener.
		closeListener()
	}
	p.closeLingering(srv, running, watchesCtx, cancelDrain, shutdownDone)
	<-serveDone
	p.signals.drained.fire()
	p.awaitHooks(hooksDone)
	log.Info("graceful termination: done")
	return hookErr
}

// closeLingering waits for Shutdown to close the connections; once no
// handler runs (the watches ended too) it gives them connectionLinger, then
// closes what is left. Shutdown polls for idle connections at intervals
// that double up to half a second and does not notice Close; ending its
// context (cancelDrain) makes it return as soon as Close is done.
func (p *PreparedServer) closeLingering(srv *http.Server, running *runningHandlers, drainCtx context.Context, cancelDrain context.CancelFunc, shutdownDone <-chan error) {
	cfg, log := p.s.config, p.s.logger
	handlersDone := make(chan error, 1)
	go func() { handlersDone <- running.wait(drainCtx) }()
	select {
	case err := <-shutdownDone:
		if err != nil {
			log.Warn("graceful termination: closing connections still open", "err", err)
			srv.Close()
		}
		return
	case err := <-handlersDone:
		if err != nil {
			break // the shutdown timeout passed: close now
		}
		select {
		case err := <-shutdownDone:
			if err != nil {
				srv.Close()
			}
			return
		case <-cfg.Clock.After(connectionLinger):
		}
	}
	log.Info("graceful termination: closing idle connections")
	srv.Close()
	cancelDrain()
	<-shutdownDone
}

// startPostStartHooks runs every hook on its own goroutine. The returned
// channel closes when all have returned; ready fires if all succeeded.
func (p *PreparedServer) startPostStartHooks(ctx context.Context) <-chan struct{} {
	hctx := PostStartHookContext{Context: ctx, LoopbackClientConfig: p.s.config.LoopbackClientConfig}
	var wg sync.WaitGroup
	var failed atomic.Bool
	for _, h := range p.postStartHooks {
		wg.Go(func() {
			start := time.Now()
			if err := runPostStartHook(h.fn, hctx); err != nil {
				p.s.logger.Error("post-start hook failed", "hook", h.name, "err", err)
				failed.Store(true)
				return
			}
			// Which hook holds readiness back is what start-up tuning needs.
			p.s.logger.Debug("post-start hook finished", "hook", h.name, "took", time.Since(start))
		})
	}
	allDone := make(chan struct{})
	go func() {
		defer close(allDone)
		wg.Wait()
		if !failed.Load() {
			p.s.logger.Info("ready: all post-start hooks finished", "hooks", len(p.postStartHooks))
			p.signals.ready.fire()
		}
	}()
	return allDone
}

// runPostStartHook calls fn, turning a panic into an error: hooks from any
// DelegationTarget run here, not only GenericServer's guarded ones.
func runPostStartHook(fn PostStartHookFunc, ctx PostStartHookContext) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v", v)
		}
	}()
	return fn(ctx)
}

// runPreShutdownHooks runs the hooks one after another, by name, and joins
// their errors; one failing hook does not stop the others.
func (p *PreparedServer) runPreShutdownHooks() error {
	var errs []error
	for _, h := range p.preShutdownHooks {
		if err := runPreShutdownHook(h.fn); err != nil {
			p.s.logger.Error("pre-shutdown hook failed", "hook", h.name, "err", err)
			errs = append(errs, fmt.Errorf("pre-shutdown hook %q: %w", h.name, err))
		}
	}
	return errors.Join(errs...)
}

func runPreShutdownHook(fn PreShutdownHookFunc) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v", v)
		}
	}()
	return fn()
}

// awaitHooks waits for the post-start hooks to return, at most
// ShutdownTimeout: a hook ignoring its context must not keep Run alive.
func (p *PreparedServer) awaitHooks(hooksDone <-chan struct{}) {
	ctx, cancel := clockTimeout(p.s.config.Clock, p.s.config.ShutdownTimeout)
	defer cancel()
	select {
	case <-hooksDone:
	case <-ctx.Done():
		p.s.logger.Warn("post-start hooks still running at exit")
	}
}

// clockTimeout is context.WithTimeout on clk, so tests can drive it.
func clockTimeout(clk clock.Clock, d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	if d <= 0 {
		cancel()
		return ctx, cancel
	}
	t := clk.NewTimer(d)
	go func() {
		defer t.Stop()
		select {
		case <-t.C():
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}
