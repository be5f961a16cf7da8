package controlplane

import (
	"context"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/tools/record"
)

// eventRecorders are the event broadcasters the in-process controllers
// share, one per process as in kube-controller-manager. There are two,
// because upstream records events through two APIs:
//   - kube-controller-manager's controllers record core/v1 Events through
//     client-go's legacy recorder, which counts identical events and
//     combines more than ten similar ones, so "Created pod: a" and
//     "Created pod: b" stay two events, each with its source component;
//   - kube-scheduler records events.k8s.io/v1 Events, whose series join
//     the events of one action and reason on one object whatever their
//     note.
//
// They are built by the first hook that needs them and shut down with the
// server.
type eventRecorders struct {
	once   sync.Once
	err    error
	legacy record.EventBroadcaster
	series events.EventBroadcaster
}

// init builds and starts both broadcasters once; ctx is the server's
// lifetime.
func (e *eventRecorders) init(ctx context.Context, loopback *rest.Config) error {
	e.once.Do(func() {
		cfg := rest.CopyConfig(loopback)
		cfg.UserAgent = "kapi/event-broadcaster"
		cfg.ContentType = "application/vnd.kubernetes.protobuf"
		client, err := newLazyClientset(cfg)
		if err != nil {
			e.err = err
			return
		}
		e.legacy = record.NewBroadcaster(record.WithContext(ctx))
		e.legacy.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")})
		e.series = events.NewBroadcaster(&events.EventSinkImpl{Interface: client.EventsV1()})
		e.series.StartRecordingToSink(ctx.Done())
		go func() {
			<-ctx.Done()
			e.legacy.Shutdown()
			e.series.Shutdown()
		}()
	})
	return e.err
}

// recorder reports core/v1 Events from component (their
// source.component), as kube-controller-manager's controllers do.
func (e *eventRecorders) recorder(component string) events.EventRecorder {
	if e == nil || e.legacy == nil {
		return &events.FakeRecorder{}
	}
	return legacyRecorder{e.coreRecorder(component)}
}

// coreRecorder is recorder's client-go recorder, for a controller written
// against the legacy interface (the garbage collector).
func (e *eventRecorders) coreRecorder(component string) record.EventRecorder {
	if e == nil || e.legacy == nil {
		return &record.FakeRecorder{}
	}
	return e.legacy.NewRecorder(scheme.Scheme, corev1.EventSource{Component: component})
}

// seriesRecorder reports events.k8s.io/v1 Events as component (their
// reportingController), as kube-scheduler does.
func (e *eventRecorders) seriesRecorder(component string) events.EventRecorder {
	if e == nil || e.series == nil {
		return &events.FakeRecorder{}
	}
	return e.series.NewRecorder(scheme.Scheme, component)
}

// legacyRecorder gives a legacy recorder the events.k8s.io recorder's
// signature the controllers are written against; a core/v1 Event has no
// action and no related object, so those are dropped, as upstream's
// controllers never record them.
type legacyRecorder struct{ r record.EventRecorder }

func (l legacyRecorder) Eventf(regarding, _ runtime.Object, eventtype, reason, _, note string, args ...any) {
	l.r.Eventf(regarding, eventtype, reason, note, args...)
}
