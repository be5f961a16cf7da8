package controllers

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/apiextensions/install"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/leakcheck"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/memory"
)

// TestMain fails the package when the controllers' goroutines outlive the
// tests.
func TestMain(m *testing.M) {
	os.Exit(leakcheck.Main(m, "internal/apiextensions/controllers."))
}

// crdStrategy is a stand-in for the CRD registry's strategy: cluster
// scoped, status kept on main writes and spec on status writes, no
// validation (the controllers are under test, not the registry).
type crdStrategy struct{ rest.SpecStatusStrategy }

func (crdStrategy) NamespaceScoped() bool                                       { return false }
func (crdStrategy) Validate(context.Context, k8sruntime.Object) field.ErrorList { return nil }
func (crdStrategy) ValidateUpdate(context.Context, k8sruntime.Object, k8sruntime.Object) field.ErrorList {
	return nil
}

type crdStatusStrategy struct{ rest.StatusSubresourceStrategy }

func (crdStatusStrategy) NamespaceScoped() bool { return false }
func (crdStatusStrategy) ValidateUpdate(context.Context, k8sruntime.Object, k8sruntime.Object) field.ErrorList {
	return nil
}

// jsonOptions stores CRDs as JSON in a memory backend.
type jsonOptions struct {
	scheme  *k8sruntime.Scheme
	backend storage.Backend
}

func (o jsonOptions) GetRESTOptions(resource schema.GroupResource, _ k8sruntime.Object) (generic.RESTOptions, error) {
	codec := serializer.NewCodecFactory(o.scheme).LegacyCodec(apiextv1.SchemeGroupVersion)
	prefix := "/" + resource.Resource
	return generic.RESTOptions{
		ResourcePrefix: prefix,
		Storage: func(newFunc, newListFunc func() k8sruntime.Object) (storage.Interface, error) {
			return o.backend.ForResource(storage.ResourceConfig{Codec: codec, NewFunc: newFunc, NewListFunc: newListFunc, ResourcePrefix: prefix, GroupResource: resource})
		},
	}, nil
}

// newCRDStorage returns a memory-backed CRD store and its status storage.
func newCRDStorage(t testing.TB) (*generic.Store, *generic.StatusREST) {
	t.Helper()
	scheme := k8sruntime.NewScheme()
	if err := install.Install(scheme); err != nil {
		t.Fatal(err)
	}
	backend := memory.New()
	t.Cleanup(func() { _ = backend.Close() })
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:     func() k8sruntime.Object { return &apiextv1.CustomResourceDefinition{} },
		NewListFunc: func() k8sruntime.Object { return &apiextv1.CustomResourceDefinitionList{} },
		Resource:    apiextv1.SchemeGroupVersion.WithResource("customresourcedefinitions").GroupResource(),
		Singular:    apiextv1.SchemeGroupVersion.WithResource("customresourcedefinition").GroupResource(),
		Strategy:    crdStrategy{rest.SpecStatusStrategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: scheme}}},
	}, jsonOptions{scheme: scheme, backend: backend})
	if err != nil {
		t.Fatal(err)
	}
	status := generic.NewStatusREST(store, crdStatusStrategy{rest.StatusSubresourceStrategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: scheme}}})
	return store, status
}

// instances is a fake custom resource storage: a lister and collection
// deleter over unstructured objects. Objects named in stuck survive
// deletion, like custom resources held by their own finalizers.
type instances struct {
	mu      sync.Mutex
	objs    map[string]*unstructured.Unstructured // namespace/name
	stuck   map[string]bool
	deleted []string // namespaces DeleteCollection was called for
}

var (
	_ rest.Storage           = (*instances)(nil)
	_ rest.Lister            = (*instances)(nil)
	_ rest.CollectionDeleter = (*instances)(nil)
)

func newInstances(keys ...string) *instances {
	in := &instances{objs: map[string]*unstructured.Unstructured{}, stuck: map[string]bool{}}
	for _, k := range keys {
		ns, name, _ := strings.Cut(k, "/")
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("example.com/v1")
		u.SetKind("Widget")
		u.SetNamespace(ns)
		u.SetName(name)
		in.objs[k] = u
	}
	return in
}

func (in *instances) New() k8sruntime.Object     { return &unstructured.Unstructured{} }
func (in *instances) Destroy()                   {}
func (in *instances) NewList() k8sruntime.Object { return &unstructured.UnstructuredList{} }
func (in *instances) ConvertToTable(context.Context, k8sruntime.Object, k8sruntime.Object) (*metav1.Table, error) {
	return nil, fmt.Errorf("not implemented")
}

func (in *instances) List(ctx context.Context, _ *metainternalversion.ListOptions) (k8sruntime.Object, error) {
	ns := request.NamespaceValue(ctx)
	in.mu.Lock()
	defer in.mu.Unlock()
	list := &unstructured.UnstructuredList{}
	for _, u := range in.objs {
		if ns == "" || u.GetNamespace() == ns {
			list.Items = append(list.Items, *u.DeepCopy())
		}
	}
	return list, nil
}

func (in *instances) DeleteCollection(ctx context.Context, _ rest.ValidateObjectFunc, _ *metav1.DeleteOptions, _ *metainternalversion.ListOptions) (k8sruntime.Object, error) {
	ns := request.NamespaceValue(ctx)
	in.mu.Lock()
	defer in.mu.Unlock()
	in.deleted = append(in.deleted, ns)
	for k, u := range in.objs {
		if u.GetNamespace() == ns && !in.stuck[k] {
			delete(in.objs, k)
		}
	}
	return &unstructured.UnstructuredList{}, nil
}

func (in *instances) release() {
	in.mu.Lock()
	defer in.mu.Unlock()
	clear(in.stuck)
}

func (in *instances) keys() []string {
	in.mu.Lock()
	defer in.mu.Unlock()
	var keys []string
	for k := range in.objs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// start runs the controllers until the test ends.
func start(t testing.TB, c Config) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, c) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
}

func newCRD(name, group, plural, kind string) *apiextv1.CustomResourceDefinition {
	return &apiextv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: apiextv1.CustomResourceDefinitionSpec{
			Group: group,
			Scope: apiextv1.NamespaceScoped,
			Names: apiextv1.CustomResourceDefinitionNames{
				Plural: plural, Singular: strings.ToLower(kind), Kind: kind, ListKind: kind + "List",
			},
			Versions: []apiextv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true}},
		},
	}
}

// waitFor polls the CRD until ok accepts it (nil: until it is gone) and
// returns it. The deadline only stops a hung test.
func waitFor(t testing.TB, s rest.Getter, name string, ok func(*apiextv1.CustomResourceDefinition) bool) *apiextv1.CustomResourceDefinition {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var last k8sruntime.Object
	for time.Now().Before(deadline) {
		obj, err := s.Get(context.Background(), name, &metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			if ok == nil {
				return nil
			}
		case err != nil:
			t.Fatalf("get %s: %v", name, err)
		default:
			last = obj
			if crd := obj.(*apiextv1.CustomResourceDefinition); ok != nil && ok(crd) {
				return crd
			}
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("customresourcedefinition %s never reached the state waited for; last seen: %+v", name, last)
	return nil
}
