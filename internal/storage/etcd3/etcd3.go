// Package etcd3 is the storage backend for etcd v3 (embedded or an external
// cluster). Keys and values are byte-compatible with kube-apiserver: a key
// is the configured prefix plus the registry key
// ("/registry" + "/configmaps/ns/name") and a value is the codec's encoding
// (protobuf in the "k8s\x00" envelope for built-in types). resourceVersion
// is the etcd modification revision.
package etcd3

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/kvstore"
	"github.com/kapi-dev/kapi/internal/storage/metrics"
	"github.com/kapi-dev/kapi/internal/storage/value"
)

// Backend serves every resource from one etcd client and key prefix.
//
// The backend does not own the client: Close stops the backend's watches and
// leaves the client open, because whoever dialled etcd (the embedded server,
// or the code that connected to --etcd-servers) also closes it, after the
// backend.
type Backend struct {
	client *clientv3.Client
	kv     *etcdKV
	stores *kvstore.Backend
}

var _ storage.Backend = (*Backend)(nil)

// Options tune a Backend.
type Options struct {
	// Prefix is prepended to every key (e.g. "/registry"; a trailing "/"
	// is ignored).
	Prefix string
	// Logger receives debug logs; nil discards.
	Logger *slog.Logger
	// Metrics records every etcd request per resource, and the lists
	// and watch events of each resource's store; nil records nothing.
	Metrics *metrics.Metrics
	// Transformers encrypts the values of some resources at rest; nil,
	// or a nil transformer for a resource, stores values as encoded.
	Transformers func(schema.GroupResource) value.Transformer
}

// New returns a backend storing keys under prefix (e.g. "/registry"; a
// trailing "/" is ignored). A nil logger discards.
func New(client *clientv3.Client, prefix string, logger *slog.Logger) *Backend {
	return NewWithOptions(client, Options{Prefix: prefix, Logger: logger})
}

// NewWithOptions returns a backend configured by opts.
func NewWithOptions(client *clientv3.Client, opts Options) *Backend {
	kv := &etcdKV{client: client, prefix: strings.TrimRight(opts.Prefix, "/")}
	// The etcd key is the authenticated data of upstream's AEAD
	// providers, so it includes the prefix.
	bo := kvstore.BackendOptions{Logger: opts.Logger, Transformers: opts.Transformers, DataKeyPrefix: kv.prefix, Metrics: opts.Metrics}
	if opts.Metrics != nil {
		bo.WrapKV = func(inner kvstore.KV, cfg storage.ResourceConfig) kvstore.KV {
			return &instrumentedKV{KV: inner, metrics: opts.Metrics, resource: cfg.GroupResource}
		}
	}
	return &Backend{client: client, kv: kv, stores: kvstore.NewBackendWithOptions(kv, bo)}
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

// Close stops every watch and waits for their goroutines; the client stays
// open.
func (b *Backend) Close() error {
	err := b.stores.Close()
	b.kv.wg.Wait()
	return err
}

// Compact compacts etcd's history up to rev (for the whole cluster, not
// only this prefix). Compacting at or below an earlier compaction is a no-op.
func (b *Backend) Compact(ctx context.Context, rev int64) error {
	_, err := b.client.Compact(ctx, rev, clientv3.WithCompactPhysical())
	if errors.Is(err, rpctypes.ErrCompacted) {
		return nil
	}
	return translate(err, "")
}

// RequestProgress asks etcd to send a progress notification to the
// backend's watches; watches that asked for progress bookmarks turn it into
// a BOOKMARK event.
func (b *Backend) RequestProgress(ctx context.Context) error {
	return b.kv.RequestProgress(ctx)
}
