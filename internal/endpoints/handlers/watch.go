package handlers

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/internal/endpoints/handlers/negotiation"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/storage"
)

// DefaultMinRequestTimeout is upstream's --min-request-timeout default.
const DefaultMinRequestTimeout = 1800 * time.Second

// watchTimeout is ?timeoutSeconds, or a random time in [min, 2*min) so
// that watches of many clients do not all end at once. A negative
// timeoutSeconds is kept: as upstream, the watch starts and ends at once.
func watchTimeout(opts *metainternalversion.ListOptions, minTimeout time.Duration) time.Duration {
	if opts.TimeoutSeconds != nil && *opts.TimeoutSeconds != 0 {
		return time.Duration(*opts.TimeoutSeconds) * time.Second
	}
	if minTimeout <= 0 {
		minTimeout = DefaultMinRequestTimeout
	}
	return minTimeout + rand.N(minTimeout)
}

// serveWatch streams the events of a storage watch until the client goes,
// the timeout fires or storage closes the watch. An error is returned only
// before the stream starts; later failures end the stream.
func serveWatch(ctx context.Context, rw rest.Watcher, scope *RequestScope, req *http.Request, w http.ResponseWriter, opts *metainternalversion.ListOptions, mediaType negotiation.MediaTypeOptions) error {
	tableOpts, err := scope.tableOptions(mediaType, req)
	if err != nil {
		return err
	}
	info, err := negotiation.NegotiateOutputMediaTypeStream(req, scope.Serializer, scope)
	if err != nil {
		return err
	}
	enc, err := scope.newWatchEncoder(ctx, info, mediaType.Convert, tableOpts)
	if err != nil {
		return err
	}
	if !canFlush(w) {
		return apierrors.NewInternalError(fmt.Errorf("unable to start watch - can't get http.Flusher: %T", w))
	}
	timeout := watchTimeout(opts, scope.MinRequestTimeout)
	scope.logger().DebugContext(ctx, "starting watch", "path", req.URL.Path,
		"resourceVersion", opts.ResourceVersion, "sendInitialEvents", opts.SendInitialEvents, "timeout", timeout)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	watcher, err := rw.Watch(ctx, opts)
	if err != nil {
		return err
	}
	defer watcher.Stop()
	// The timeout bounds the stream, not the start of the watch, whose
	// errors (a compacted resourceVersion, ...) the client gets even when
	// its timeout has already passed.
	streamCtx, cancelStream := context.WithTimeout(ctx, timeout)
	defer cancelStream()
	streamEvents(streamCtx, scope, w, info, watcher, enc)
	return nil
}

// streamEvents writes the stream header then one frame per event. It
// flushes whenever no further event is ready, so that clients see changes
// as they happen, but a burst (a watch's initial events) goes out in as
// few writes as the connection's buffer allows, not one TLS record and
// system call per event.
func streamEvents(ctx context.Context, scope *RequestScope, w http.ResponseWriter, info runtime.SerializerInfo, watcher watch.Interface, enc *watchEncoder) {
	contentType := info.MediaType
	if contentType != runtime.ContentTypeJSON {
		contentType += ";stream=watch"
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Transfer-Encoding", "chunked")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	if err := rc.Flush(); err != nil {
		return
	}
	enc.framer = info.StreamSerializer.Framer.NewFrameWriter(w)
	obs := request.ObservationFrom(ctx)
	next, tryNext := storage.EventSource(watcher)
	for {
		event, ok := tryNext(ctx)
		if !ok {
			if err := rc.Flush(); err != nil {
				return
			}
			if event, ok = next(ctx); !ok {
				return
			}
		}
		if err := enc.encode(event); err != nil {
			scope.logger().DebugContext(ctx, "watch ended: cannot write event", "err", err)
			return
		}
		obs.WatchEvent(enc.eventBuf.Len())
	}
}

// canFlush reports whether w, or a writer it wraps, can flush.
func canFlush(w http.ResponseWriter) bool {
	for {
		if _, ok := w.(http.Flusher); ok {
			return true
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return false
		}
		w = u.Unwrap()
	}
}

// watchEncoder writes watch events: the object of each event is
// converted (Table, PartialObjectMetadata) and encoded in the negotiated
// media type, then wrapped in a WatchEvent written as one frame.
type watchEncoder struct {
	ctx       context.Context
	scope     *RequestScope
	target    *schema.GroupVersionKind
	tableOpts *metav1.TableOptions
	embedded  runtime.Encoder
	outer     runtime.Encoder
	framer    io.Writer
	objBuf    bytes.Buffer
	eventBuf  bytes.Buffer
}

func (s *RequestScope) newWatchEncoder(ctx context.Context, info runtime.SerializerInfo, target *schema.GroupVersionKind, tableOpts *metav1.TableOptions) (*watchEncoder, error) {
	if info.StreamSerializer == nil || info.StreamSerializer.Framer == nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("no stream framing for media type %q", info.MediaType))
	}
	embedded := s.Serializer.EncoderForVersion(info.Serializer, s.encodeVersion())
	if isMetaTarget(target) {
		metaInfo, ok := runtime.SerializerInfoForMediaType(metaSerializer().SupportedMediaTypes(), info.MediaType)
		if !ok {
			return nil, apierrors.NewInternalError(fmt.Errorf("no encoder for %q in the meta.k8s.io codecs", info.MediaType))
		}
		embedded = metaSerializer().EncoderForVersion(metaInfo.Serializer, target.GroupVersion())
	}
	return &watchEncoder{
		ctx:       ctx,
		scope:     s,
		target:    target,
		tableOpts: tableOpts,
		embedded:  embedded,
		outer:     s.Serializer.EncoderForVersion(info.StreamSerializer.Serializer, s.Kind.GroupVersion()),
	}, nil
}

func (e *watchEncoder) encode(event watch.Event) error {
	obj, err := e.scope.transformObject(e.ctx, event.Object, e.tableOpts, e.target)
	if err != nil {
		// As upstream: an object that cannot be converted is sent as is
		// rather than breaking the watch.
		e.scope.logger().ErrorContext(e.ctx, "cannot convert watch event object", "type", fmt.Sprintf("%T", event.Object), "err", err)
		obj = event.Object
	}
	// Only the first table of a watch carries the column definitions.
	if e.tableOpts != nil {
		e.tableOpts.NoHeaders = true
	}
	e.objBuf.Reset()
	if err := e.embedded.Encode(obj, &e.objBuf); err != nil {
		return fmt.Errorf("encoding watch object %T: %w", obj, err)
	}
	out := &metav1.WatchEvent{Type: string(event.Type), Object: runtime.RawExtension{Raw: e.objBuf.Bytes()}}
	e.eventBuf.Reset()
	if err := e.outer.Encode(out, &e.eventBuf); err != nil {
		return fmt.Errorf("encoding watch event: %w", err)
	}
	// One Write per event: a length-delimited framer frames each Write.
	_, err = e.framer.Write(e.eventBuf.Bytes())
	return err
}
