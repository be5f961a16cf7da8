package kvstore

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/metrics"
	"github.com/kapi-dev/kapi/internal/storage/value"
)

// Backend hands out stores over one KV and owns their watch goroutines. The
// etcd3 and memory backends wrap it.
type Backend struct {
	kv     KV
	logger *slog.Logger
	// wrapKV, when set, gives each resource its own view of kv (metrics
	// per resource).
	wrapKV func(KV, storage.ResourceConfig) KV
	// transformers and dataKeyPrefix: see BackendOptions.
	transformers  func(schema.GroupResource) value.Transformer
	dataKeyPrefix string
	metrics       *metrics.Metrics

	// ctx is cancelled by Close; every watch goroutine stops with it.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex // guards closed against wg.Add racing wg.Wait
	closed bool
}

// BackendOptions tune a Backend.
type BackendOptions struct {
	// Logger receives debug logs; nil discards.
	Logger *slog.Logger
	// WrapKV, when set, wraps kv for each resource, e.g. to record
	// request metrics labelled with the resource.
	WrapKV func(KV, storage.ResourceConfig) KV
	// Transformers, when set, gives the transformer a resource's values
	// pass through between the codec and the KV (encryption at rest). A
	// nil func or a nil result stores values as the codec encodes them.
	Transformers func(schema.GroupResource) value.Transformer
	// DataKeyPrefix is the KV's own key prefix (etcd: "/registry"). A
	// transformer binds each value to DataKeyPrefix + key, its full etcd
	// key, as kube-apiserver does.
	DataKeyPrefix string
	// Metrics, when set, records per resource the lists the stores serve
	// and the events and progress notifications their watches receive,
	// under upstream's etcd storage families; nil records nothing.
	Metrics *metrics.Metrics
}

// NewBackend serves stores backed by kv. A nil logger discards.
func NewBackend(kv KV, logger *slog.Logger) *Backend {
	return NewBackendWithOptions(kv, BackendOptions{Logger: logger})
}

// NewBackendWithOptions serves stores backed by kv as opts say.
func NewBackendWithOptions(kv KV, opts BackendOptions) *Backend {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Backend{kv: kv, logger: logger, wrapKV: opts.WrapKV,
		transformers: opts.Transformers, dataKeyPrefix: opts.DataKeyPrefix, metrics: opts.Metrics,
		ctx: ctx, cancel: cancel}
}

// ForResource returns the storage.Interface for one resource.
func (b *Backend) ForResource(cfg storage.ResourceConfig) (storage.Interface, error) {
	switch {
	case cfg.Codec == nil:
		return nil, errors.New("storage: resource config has no codec")
	case cfg.NewFunc == nil:
		return nil, errors.New("storage: resource config has no NewFunc")
	case !strings.HasPrefix(cfg.ResourcePrefix, "/") || strings.TrimRight(cfg.ResourcePrefix, "/") == "":
		return nil, errors.New("storage: resource prefix must start with \"/\" and name a folder, got " + cfg.ResourcePrefix)
	}
	kv := b.kv
	if b.wrapKV != nil {
		kv = b.wrapKV(kv, cfg)
	}
	var transformer value.Transformer
	if b.transformers != nil {
		transformer = b.transformers(cfg.GroupResource)
	}
	return &store{
		backend:        b,
		kv:             kv,
		codec:          cfg.Codec,
		newFunc:        cfg.NewFunc,
		resourcePrefix: strings.TrimRight(cfg.ResourcePrefix, "/"),
		versioner:      storage.APIObjectVersioner{},
		logger:         b.logger.With("resource", cfg.ResourcePrefix),
		transformer:    transformer,
		dataKeyPrefix:  b.dataKeyPrefix,
		metrics:        b.metrics.Store(cfg.GroupResource),
	}, nil
}

// Close stops every watch started through this backend and waits for their
// goroutines. It does not close the KV; the owner of the KV does.
func (b *Backend) Close() error {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.cancel()
	b.wg.Wait()
	return nil
}

// startWatch reserves a watch: it returns the watch's context, which ends
// with ctx, with cancel or when the backend closes, and release, which the
// watch calls when it has stopped. Close waits for every release.
func (b *Backend) startWatch(ctx context.Context) (wctx context.Context, cancel, release context.CancelFunc, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, nil, nil, errClosed()
	}
	b.wg.Add(1)
	wctx, cancel = context.WithCancel(ctx)
	stop := context.AfterFunc(b.ctx, cancel)
	release = func() {
		stop()
		cancel()
		b.wg.Done()
	}
	return wctx, cancel, release, nil
}

// errClosed is returned by watches started after Close.
func errClosed() error {
	return storage.NewError(storage.ErrCodeUnreachable, "", 0, "storage backend is closed")
}
