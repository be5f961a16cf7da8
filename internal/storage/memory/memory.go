// Package memory is a storage backend that keeps everything in process
// memory, for --storage-backend=memory and the test harness. It models etcd:
// one revision counter for all resources, values stored as codec-encoded
// bytes, reads at past revisions and watch resume within a bounded history.
// Nothing survives a restart.
package memory

import (
	"context"
	"log/slog"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/kvstore"
	"github.com/kapi-dev/kapi/internal/storage/value"
)

// Defaults for Options.
const (
	DefaultHistorySize     = 10000
	DefaultWatchBufferSize = 1024
)

// Options tune a memory backend. Zero values pick the defaults.
type Options struct {
	// HistorySize is how many revisions stay readable and watchable; older
	// ones are compacted away, and resuming a watch or paged list from them
	// fails with storage.ErrCodeExpired.
	HistorySize int
	// WatchBufferSize is how many events a watcher may fall behind before
	// it is terminated (its channel closes) so that writers never block.
	WatchBufferSize int
	// Logger receives debug logs; nil discards.
	Logger *slog.Logger
	// Transformers encrypts the values of some resources at rest; nil
	// stores values as encoded.
	Transformers func(schema.GroupResource) value.Transformer
}

// Backend is an in-memory storage.Backend.
type Backend struct {
	kv     *kv
	stores *kvstore.Backend
}

var _ storage.Backend = (*Backend)(nil)

// New returns a memory backend with default options.
func New() *Backend { return NewWithOptions(Options{}) }

// NewWithOptions returns a memory backend.
func NewWithOptions(opts Options) *Backend {
	if opts.HistorySize <= 0 {
		opts.HistorySize = DefaultHistorySize
	}
	if opts.WatchBufferSize <= 0 {
		opts.WatchBufferSize = DefaultWatchBufferSize
	}
	kv := newKV(opts.HistorySize, opts.WatchBufferSize)
	return &Backend{kv: kv, stores: kvstore.NewBackendWithOptions(kv, kvstore.BackendOptions{Logger: opts.Logger, Transformers: opts.Transformers})}
}

// ForResource returns the storage of one resource.
func (b *Backend) ForResource(cfg storage.ResourceConfig) (storage.Interface, error) {
	return b.stores.ForResource(cfg)
}

// Keys reads every key of the backend at its latest revision (see
// kvstore.Backend.Keys).
func (b *Backend) Keys(ctx context.Context, limit int64) (kvstore.KeySnapshot, bool, error) {
	return b.stores.Keys(ctx, limit)
}

// Close stops all watches; later calls fail with ErrCodeUnreachable.
func (b *Backend) Close() error {
	err := b.stores.Close()
	b.kv.close()
	return err
}

// RequestProgress sends every watcher a progress notification at the
// current revision; watches that asked for progress bookmarks turn it into a
// BOOKMARK event.
func (b *Backend) RequestProgress(ctx context.Context) error {
	return b.kv.RequestProgress(ctx)
}

// Compact discards history up to and including rev, like an etcd
// compaction: reads and watches at older revisions then fail with
// storage.ErrCodeExpired.
func (b *Backend) Compact(ctx context.Context, rev int64) error {
	return b.kv.compact(rev)
}
