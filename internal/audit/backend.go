package audit

import (
	"errors"

	auditv1 "github.com/kapi-dev/kapi/internal/audit/v1"
)

// Backend receives audit events.
type Backend interface {
	// ProcessEvents handles events and reports whether it could. The
	// caller reuses the events after the call: a backend that keeps one
	// must copy it (Event.DeepCopy).
	ProcessEvents(events ...*auditv1.Event) bool
	// Run starts the backend's background work, if any, without blocking;
	// closing stopCh stops it. It is called before the first ProcessEvents.
	Run(stopCh <-chan struct{}) error
	// Shutdown delivers what is still pending and returns when done.
	Shutdown()
}

// Union returns a Backend that sends every event to each of backends, as
// kube-apiserver does when both the log and the webhook are configured.
func Union(backends ...Backend) Backend {
	if len(backends) == 1 {
		return backends[0]
	}
	return union(backends)
}

type union []Backend

func (u union) ProcessEvents(events ...*auditv1.Event) bool {
	ok := true
	for _, b := range u {
		ok = b.ProcessEvents(events...) && ok
	}
	return ok
}

func (u union) Run(stopCh <-chan struct{}) error {
	var errs []error
	for _, b := range u {
		errs = append(errs, b.Run(stopCh))
	}
	return errors.Join(errs...)
}

func (u union) Shutdown() {
	for _, b := range u {
		b.Shutdown()
	}
}
