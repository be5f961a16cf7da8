// Package registrytest builds the REST storage of real resources over the
// memory backend for tests: a scheme with every API group installed and a
// generic.RESTOptionsGetter that stores objects as protobuf in their
// storage version, as the control plane does.
package registrytest

import (
	"context"
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"github.com/kapi-dev/kapi/internal/apis/install"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/memory"
)

// NewScheme returns a scheme with everything kapi serves installed.
func NewScheme(t testing.TB) *runtime.Scheme {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := install.InstallAll(scheme); err != nil {
		t.Fatalf("InstallAll: %v", err)
	}
	return scheme
}

// OptionsGetter hands out storage from one memory backend.
type OptionsGetter struct {
	Scheme  *runtime.Scheme
	Backend storage.Backend
}

var _ generic.RESTOptionsGetter = (*OptionsGetter)(nil)

// NewOptionsGetter returns an OptionsGetter over a fresh memory backend
// that is closed when the test ends.
func NewOptionsGetter(t testing.TB, scheme *runtime.Scheme) *OptionsGetter {
	t.Helper()
	backend := memory.New()
	t.Cleanup(func() { _ = backend.Close() })
	return &OptionsGetter{Scheme: scheme, Backend: backend}
}

// GetRESTOptions stores the resource under "/<resource>" in the version of
// example's kind.
func (g *OptionsGetter) GetRESTOptions(resource schema.GroupResource, example runtime.Object) (generic.RESTOptions, error) {
	gvks, _, err := g.Scheme.ObjectKinds(example)
	if err != nil {
		return generic.RESTOptions{}, fmt.Errorf("kind of %s: %w", resource, err)
	}
	gv := gvks[0].GroupVersion()
	codecs := serializer.NewCodecFactory(g.Scheme)
	codec := codecs.CodecForVersions(protobuf.NewSerializer(g.Scheme, g.Scheme), codecs.UniversalDecoder(gv), gv, gv)
	prefix := "/" + resource.Resource
	return generic.RESTOptions{
		ResourcePrefix: prefix,
		Storage: func(newFunc, newListFunc func() runtime.Object) (storage.Interface, error) {
			return g.Backend.ForResource(storage.ResourceConfig{Codec: codec, NewFunc: newFunc, NewListFunc: newListFunc, ResourcePrefix: prefix})
		},
	}, nil
}

// NamespaceContext returns a request context for namespace ns ("" for
// cluster-scoped resources).
func NamespaceContext(ns string) context.Context {
	return request.WithNamespace(context.Background(), ns)
}
