package server

import "context"

// stopWatches ends the long-running requests once the server stops
// accepting new ones. By default all at once, and shutdown waits for them
// as long as for the rest (ShutdownTimeout): they end within milliseconds.
// With ShutdownWatchTerminationGracePeriod, as upstream, they are ended
// one after another spread over the grace period, and shutdown waits at
// most that long before closing their connections. The returned context
// bounds that wait; the function stops the pacing and waits for it.
func (p *PreparedServer) stopWatches(drainCtx context.Context) (context.Context, func()) {
	cfg := p.s.config
	wg := cfg.NonLongRunningRequestWaitGroup
	grace := cfg.ShutdownWatchTerminationGracePeriod
	if grace <= 0 {
		wg.StopLongRunning()
		return drainCtx, func() {}
	}
	graceCtx, cancelGrace := clockTimeout(cfg.Clock, grace)
	ctx, cancel := context.WithCancel(drainCtx)
	stopAfter := context.AfterFunc(graceCtx, cancel)
	paced := make(chan struct{})
	go func() {
		defer close(paced)
		wg.StopLongRunningPaced(ctx, cfg.Clock, grace)
	}()
	return ctx, func() {
		stopAfter()
		cancelGrace()
		cancel()
		<-paced
	}
}
