package controlplane

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/etcd3"
	"github.com/kapi-dev/kapi/internal/storage/etcd3/embedded"
	"github.com/kapi-dev/kapi/internal/storage/memory"
)

// openBackend starts or connects to the storage the config names. The
// returned close function releases the backend and anything it started.
func openBackend(ctx context.Context, c *Config, logger *slog.Logger) (storage.Backend, func() error, error) {
	switch c.StorageBackend {
	case "memory":
		b := memory.New()
		return b, b.Close, nil
	case "etcd3", "":
	default:
		return nil, nil, fmt.Errorf("unknown storage backend %q", c.StorageBackend)
	}
	if len(c.EtcdServers) > 0 {
		client, err := clientv3.New(clientv3.Config{
			Endpoints:   c.EtcdServers,
			DialTimeout: 20 * time.Second,
			Logger:      nil,
		})
		if err != nil {
			return nil, nil, fmt.Errorf("connecting to --etcd-servers %v: %w", c.EtcdServers, err)
		}
		b := etcd3.New(client, c.EtcdPrefix, logger)
		return b, func() error { return errors.Join(b.Close(), client.Close()) }, nil
	}
	srv, err := embedded.Start(ctx, filepath.Join(c.DataDir, "etcd"), logger)
	if err != nil {
		return nil, nil, fmt.Errorf("starting embedded etcd in %s: %w", filepath.Join(c.DataDir, "etcd"), err)
	}
	b := etcd3.New(srv.Client(), c.EtcdPrefix, logger)
	return b, func() error { return errors.Join(b.Close(), srv.Close()) }, nil
}

// restOptionsGetter hands every resource its storage: the shared backend,
// with a protobuf codec for the resource's storage version (the
// kube-apiserver value encoding) and the upstream key folder.
type restOptionsGetter struct {
	backend storage.Backend
	scheme  *runtime.Scheme
	codecs  serializer.CodecFactory
}

var _ generic.RESTOptionsGetter = (*restOptionsGetter)(nil)

func (g *restOptionsGetter) GetRESTOptions(resource schema.GroupResource, example runtime.Object) (generic.RESTOptions, error) {
	gvks, _, err := g.scheme.ObjectKinds(example)
	if err != nil {
		return generic.RESTOptions{}, fmt.Errorf("storage version of %s: %w", resource, err)
	}
	gv := gvks[0].GroupVersion()
	codec := g.codecs.CodecForVersions(protobuf.NewSerializer(g.scheme, g.scheme), g.codecs.UniversalDecoder(gv), gv, gv)
	prefix := "/" + resource.Resource
	return generic.RESTOptions{
		ResourcePrefix: prefix,
		Storage: func(newFunc, newListFunc func() runtime.Object) (storage.Interface, error) {
			return g.backend.ForResource(storage.ResourceConfig{
				Codec:          codec,
				NewFunc:        newFunc,
				NewListFunc:    newListFunc,
				ResourcePrefix: prefix,
			})
		},
	}, nil
}
