package server

import "sync"

// lifecycleSignals are the phases of a server's life, each a channel closed
// once when the phase begins, so that any number of parties can wait on it.
type lifecycleSignals struct {
	// ready: serving, and every post-start hook returned nil.
	ready signal
	// shutdownInitiated: Run's context ended; /readyz fails from here.
	shutdownInitiated signal
	// notAcceptingNewRequests: the delay and pre-shutdown hooks are over;
	// the listener closes and new requests are refused.
	notAcceptingNewRequests signal
	// drained: in-flight requests finished or the shutdown timeout passed.
	drained signal
}

func newLifecycleSignals() lifecycleSignals {
	return lifecycleSignals{
		ready:                   newSignal(),
		shutdownInitiated:       newSignal(),
		notAcceptingNewRequests: newSignal(),
		drained:                 newSignal(),
	}
}

// signal is a channel that can be closed more than once safely.
type signal struct {
	ch   chan struct{}
	once *sync.Once
}

func newSignal() signal {
	return signal{ch: make(chan struct{}), once: &sync.Once{}}
}

func (s signal) fire()                 { s.once.Do(func() { close(s.ch) }) }
func (s signal) done() <-chan struct{} { return s.ch }
