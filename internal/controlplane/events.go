package controlplane

import (
	"context"
	"sync"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
)

// eventRecorders is the one events.k8s.io/v1 broadcaster the in-process
// controllers share, as kube-controller-manager shares one per process:
// client-go aggregates repeated events into series and rate-limits them.
// It is built by the first controller hook that runs and shut down with
// the server.
type eventRecorders struct {
	once        sync.Once
	err         error
	broadcaster events.EventBroadcaster
}

// init builds and starts the broadcaster once; ctx is the server's
// lifetime.
func (e *eventRecorders) init(ctx context.Context, loopback *rest.Config) error {
	e.once.Do(func() {
		cfg := rest.CopyConfig(loopback)
		cfg.UserAgent = "kapi/event-broadcaster"
		cfg.ContentType = "application/vnd.kubernetes.protobuf"
		client, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			e.err = err
			return
		}
		e.broadcaster = events.NewBroadcaster(&events.EventSinkImpl{Interface: client.EventsV1()})
		e.broadcaster.StartRecordingToSink(ctx.Done())
		go func() {
			<-ctx.Done()
			e.broadcaster.Shutdown()
		}()
	})
	return e.err
}

// recorder reports as component (the event's reportingController).
func (e *eventRecorders) recorder(component string) events.EventRecorder {
	if e == nil || e.broadcaster == nil {
		return &events.FakeRecorder{}
	}
	return e.broadcaster.NewRecorder(scheme.Scheme, component)
}
