package controlplane

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/recognizer"

	"github.com/kapi-dev/kapi/internal/pbdecode"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/cacher"
	"github.com/kapi-dev/kapi/internal/storage/encryptionconfig"
	"github.com/kapi-dev/kapi/internal/storage/etcd3"
	"github.com/kapi-dev/kapi/internal/storage/etcd3/embedded"
	"github.com/kapi-dev/kapi/internal/storage/memory"
	"github.com/kapi-dev/kapi/internal/storage/metrics"
	"github.com/kapi-dev/kapi/internal/storage/value"
)

// storageHandle is the opened storage and what the rest of the control
// plane needs to know about it.
type storageHandle struct {
	backend storage.Backend
	closeFn func() error
	// etcd is the client of an etcd backend (embedded or external); nil
	// for memory.
	etcd   *clientv3.Client
	prefix string
	// awaitCaches waits for the first list of the watch caches created
	// while the server was built (see cacher.Backend.DeferInitialSync);
	// nil without a watch cache.
	awaitCaches func(context.Context)
	// ready, when set, waits until the backend serves: the embedded etcd
	// elects itself while the server is built. Nothing may use the
	// backend before it returned nil.
	ready func(context.Context) error
}

// awaitReady waits until the backend serves.
func (h *storageHandle) awaitReady(ctx context.Context) error {
	if h.ready == nil {
		return nil
	}
	return h.ready(ctx)
}

func (h *storageHandle) close() error { return h.closeFn() }

// openBackend starts or connects to the storage the config names and puts
// the watch cache in front of it unless the config turns it off. The
// returned handle's close releases the backend and anything it started.
func openBackend(ctx context.Context, c *Config, m *metrics.Metrics, logger *slog.Logger) (*storageHandle, error) {
	h, err := openStore(ctx, c, m, logger)
	if err != nil || c.WatchCacheSize <= 0 {
		return h, err
	}
	cached := cacher.NewBackend(h.backend, cacher.Options{HistorySize: c.WatchCacheSize, Logger: logger.With("component", "watch-cache"), Metrics: m})
	// The caches of the built-in resources list together; Run waits for
	// them before it serves.
	cached.DeferInitialSync()
	h.awaitCaches = cached.WaitInitialSync
	closeStore := h.closeFn
	h.backend = cached
	h.closeFn = func() error {
		// Closing the cache closes the store's backend; closing the store's
		// backend again is harmless.
		return errors.Join(cached.Close(), closeStore())
	}
	return h, nil
}

// openStore opens the storage backend itself.
func openStore(ctx context.Context, c *Config, m *metrics.Metrics, logger *slog.Logger) (*storageHandle, error) {
	transformers, err := encryptionTransformers(c.Security.EncryptionProviderConfig)
	if err != nil {
		return nil, err
	}
	switch c.StorageBackend {
	case "memory":
		b := memory.NewWithOptions(memory.Options{Transformers: transformers})
		return &storageHandle{backend: b, closeFn: b.Close}, nil
	case "etcd3", "":
	default:
		return nil, fmt.Errorf("unknown storage backend %q", c.StorageBackend)
	}
	opts := etcd3.Options{Prefix: c.EtcdPrefix, Logger: logger, Metrics: m, Transformers: transformers}
	var client *clientv3.Client
	var closeClient func() error
	var ready func(context.Context) error
	if len(c.EtcdServers) > 0 {
		var err error
		client, err = etcd3.NewClient(etcd3.ClientConfig{
			Endpoints: c.EtcdServers,
			CAFile:    c.EtcdCAFile, CertFile: c.EtcdCertFile, KeyFile: c.EtcdKeyFile,
			Logger: logger, DialOptions: c.etcdDialOptions(),
		})
		if err != nil {
			return nil, fmt.Errorf("connecting to --etcd-servers %v: %w", c.EtcdServers, err)
		}
		closeClient = client.Close
	} else {
		dir := filepath.Join(c.DataDir, "etcd")
		srv, err := embedded.Launch(ctx, embedded.Options{Dir: dir, Logger: logger, ClientDialOptions: c.etcdDialOptions(), UnsafeNoFsync: c.EmbeddedEtcdUnsafeNoFsync})
		if err != nil {
			return nil, fmt.Errorf("starting embedded etcd in %s: %w", dir, err)
		}
		client, closeClient = srv.Client(), srv.Close
		ready = func(ctx context.Context) error {
			if err := srv.WaitReady(ctx); err != nil {
				return fmt.Errorf("starting embedded etcd in %s: %w", dir, err)
			}
			return nil
		}
	}
	b := etcd3.NewWithOptions(client, opts)
	// Compaction keeps etcd's history bounded; several API servers on one
	// etcd take turns through the compact_rev_key.
	stopCompactor := etcd3.StartCompactor(context.Background(), client, c.EtcdCompactionInterval, logger.With("component", "compactor"))
	return &storageHandle{backend: b, etcd: client, prefix: c.EtcdPrefix, ready: ready,
		closeFn: func() error {
			stopCompactor()
			return errors.Join(b.Close(), closeClient())
		}}, nil
}

// etcdCheck reads one key from etcd within timeout: a healthy member
// answers even when the key is absent, as kube-apiserver's etcd check
// expects; a permission error still proves etcd is up.
func (h *storageHandle) etcdCheck(timeout time.Duration) func(ctx context.Context) error {
	if timeout <= 0 {
		timeout = 2 * time.Second
	}
	return func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		_, err := h.etcd.Get(ctx, path.Join("/", h.prefix, "health"), clientv3.WithCountOnly())
		if err == nil || errors.Is(err, rpctypes.ErrPermissionDenied) {
			return nil
		}
		return fmt.Errorf("etcd: %w", err)
	}
}

// restOptionsGetter hands every resource its storage: the shared backend,
// with a protobuf codec for the resource's storage version (the
// kube-apiserver value encoding) and the upstream key folder. It remembers
// what it handed out so the object counter can visit every resource.
type restOptionsGetter struct {
	backend storage.Backend
	scheme  *runtime.Scheme
	codecs  serializer.CodecFactory

	mu       sync.Mutex
	resource []*resourceStorage
}

// resourceStorage is one resource's storage, for the object counter.
type resourceStorage struct {
	resource schema.GroupResource
	prefix   string
	storage  storage.Interface
}

var _ generic.RESTOptionsGetter = (*restOptionsGetter)(nil)

func (g *restOptionsGetter) GetRESTOptions(resource schema.GroupResource, example runtime.Object) (generic.RESTOptions, error) {
	codec, err := g.codecFor(resource, example)
	if err != nil {
		return generic.RESTOptions{}, err
	}
	prefix := "/" + resourcePrefix(resource)
	if _, custom := example.(runtime.Unstructured); custom {
		// Custom resources live under their group, as kube-apiserver keeps them.
		prefix = "/" + resource.Group + "/" + resource.Resource
	}
	return generic.RESTOptions{
		ResourcePrefix: prefix,
		Storage: func(newFunc, newListFunc func() runtime.Object) (storage.Interface, error) {
			s, err := g.backend.ForResource(storage.ResourceConfig{
				Codec:          codec,
				NewFunc:        newFunc,
				NewListFunc:    newListFunc,
				ResourcePrefix: prefix,
				GroupResource:  resource,
			})
			if err != nil {
				return nil, err
			}
			rs := &resourceStorage{resource, prefix, s}
			g.mu.Lock()
			g.resource = append(g.resource, rs)
			g.mu.Unlock()
			return &releasableStorage{Interface: s, release: func() { g.forget(rs) }}, nil
		},
	}, nil
}

// forget stops counting the objects of a released storage.
func (g *restOptionsGetter) forget(rs *resourceStorage) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.resource = slices.DeleteFunc(g.resource, func(r *resourceStorage) bool { return r == rs })
}

// releasableStorage is a storage handed to a store: its Destroy (a custom
// resource's store being replaced or dropped) releases the storage
// underneath (the watch cache) and stops counting its objects.
type releasableStorage struct {
	storage.Interface
	release func()
}

var _ generic.StorageDestroyer = (*releasableStorage)(nil)

func (s *releasableStorage) Destroy() {
	s.release()
	if d, ok := s.Interface.(generic.StorageDestroyer); ok {
		d.Destroy()
	}
}

// codecFor is how a resource's objects are stored: protobuf in the
// storage version for built-in kinds, as kube-apiserver stores them; JSON
// for custom resources (unstructured) and for the kinds kube-apiserver
// stores as JSON (jsonStoredResources). The decoder reads JSON, YAML and
// protobuf alike, so a change of encoding never strands stored objects.
func (g *restOptionsGetter) codecFor(resource schema.GroupResource, example runtime.Object) (runtime.Codec, error) {
	if _, ok := example.(runtime.Unstructured); ok {
		return unstructured.UnstructuredJSONScheme, nil
	}
	gvks, _, err := g.scheme.ObjectKinds(example)
	if err != nil {
		return nil, fmt.Errorf("storage version of %s: %w", resource, err)
	}
	gv := gvks[0].GroupVersion()
	pb := pbdecode.NewSerializer(g.scheme, g.scheme)
	var encoder runtime.Serializer = pb
	if _, ok := example.(interface{ Marshal() ([]byte, error) }); !ok || jsonStoredResources[resource] {
		info, _ := runtime.SerializerInfoForMediaType(g.codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
		encoder = info.Serializer
	}
	// One conversion and defaulting step over every decoder, protobuf
	// first, as kube-apiserver's storage codec has.
	decoder := recognizer.NewDecoder(pb, g.codecs.UniversalDeserializer())
	return g.codecs.CodecForVersions(encoder, decoder, gv, gv), nil
}

// jsonStoredResources are the built-in kinds that kube-apiserver stores as
// JSON although their types have protobuf: its extensions server writes
// CustomResourceDefinitions through a JSON codec (LegacyCodec), not the
// protobuf storage media type of the core groups.
var jsonStoredResources = map[schema.GroupResource]bool{
	{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}: true,
}

// objectCountInterval is how often apiserver_storage_objects is refreshed,
// as often as kube-apiserver refreshes it.
const objectCountInterval = time.Minute

// countObjects refreshes apiserver_storage_objects for every resource.
func (g *restOptionsGetter) countObjects(ctx context.Context, m *metrics.Metrics) {
	g.mu.Lock()
	resources := slices.Clone(g.resource)
	g.mu.Unlock()
	// On etcd each count is a round trip: some 60 one after another
	// were the slowest post-start hook of a start.
	sem := make(chan struct{}, countWorkers)
	var wg sync.WaitGroup
	for _, r := range resources {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			n, err := r.storage.Count(ctx, r.prefix)
			if ctx.Err() != nil {
				return
			}
			m.SetObjectCount(r.resource, n, err)
		})
	}
	wg.Wait()
}

// countWorkers is how many object counts are in flight at once.
const countWorkers = 16

// keepCountingObjects refreshes the counts every objectCountInterval
// until ctx ends.
func (g *restOptionsGetter) keepCountingObjects(ctx context.Context, m *metrics.Metrics) {
	ticker := time.NewTicker(objectCountInterval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			g.countObjects(ctx, m)
		}
	}
}

// specialResourcePrefixes are the etcd key folders kube-apiserver gives a
// few resources for historical reasons; every other resource is stored
// under its plural name.
var specialResourcePrefixes = map[schema.GroupResource]string{
	{Resource: "replicationcontrollers"}:                "controllers",
	{Resource: "endpoints"}:                             "services/endpoints",
	{Resource: "nodes"}:                                 "minions",
	{Resource: "services"}:                              "services/specs",
	{Group: "networking.k8s.io", Resource: "ingresses"}: "ingress",
	// The aggregator keeps its objects under their group.
	{Group: "apiregistration.k8s.io", Resource: "apiservices"}: "apiregistration.k8s.io/apiservices",
}

// resourcePrefix is the key folder of resource, as kube-apiserver has it.
func resourcePrefix(resource schema.GroupResource) string {
	if p, ok := specialResourcePrefixes[resource]; ok {
		return p
	}
	return resource.Resource
}

// encryptionTransformers loads --encryption-provider-config; no file means
// nothing is encrypted.
func encryptionTransformers(path string) (func(schema.GroupResource) value.Transformer, error) {
	if path == "" {
		return nil, nil
	}
	cfg, err := encryptionconfig.Load(path)
	if err != nil {
		return nil, fmt.Errorf("--encryption-provider-config: %w", err)
	}
	return cfg.TransformerFor, nil
}
