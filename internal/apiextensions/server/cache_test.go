package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/endpoints/discovery"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/cacher"
	"github.com/kapi-dev/kapi/internal/storage/memory"
)

// backendOptions stores unstructured objects as JSON in any backend (the
// watch cache's here).
type backendOptions struct{ backend storage.Backend }

func (g backendOptions) GetRESTOptions(gr schema.GroupResource, _ runtime.Object) (generic.RESTOptions, error) {
	prefix := "/" + gr.Group + "/" + gr.Resource
	return generic.RESTOptions{ResourcePrefix: prefix, Storage: func(newFunc, newListFunc func() runtime.Object) (storage.Interface, error) {
		return g.backend.ForResource(storage.ResourceConfig{Codec: unstructured.UnstructuredJSONScheme, NewFunc: newFunc,
			NewListFunc: newListFunc, ResourcePrefix: prefix, GroupResource: gr})
	}}, nil
}

// cachedEnv is a handler whose custom resources are served through the
// watch cache, over the memory backend.
type cachedEnv struct {
	*testEnv
	mem   *memory.Backend
	cache *cacher.Backend
}

func newCachedEnv(t *testing.T, inner func(*memory.Backend) storage.Backend, crds ...*apiextv1.CustomResourceDefinition) *cachedEnv {
	t.Helper()
	mem := memory.New()
	var in storage.Backend = mem
	if inner != nil {
		in = inner(mem)
	}
	cache := cacher.NewBackend(in, cacher.Options{})
	t.Cleanup(func() { _ = cache.Close() })
	src := &fakeSource{crds: map[string]*apiextv1.CustomResourceDefinition{}}
	for _, c := range crds {
		src.set(c)
	}
	disc := discovery.NewManager(discovery.Options{})
	h, err := New(Config{Source: src, RESTOptionsGetter: backendOptions{cache}, Schema: stubSchema{}, Discovery: disc})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(withTestFilters(h))
	t.Cleanup(srv.Close)
	return &cachedEnv{testEnv: &testEnv{src: src, h: h, disc: disc, server: srv}, mem: mem, cache: cache}
}

// rawWidgets is the widgets' storage without the cache.
func (e *cachedEnv) rawWidgets(t *testing.T) storage.Interface {
	t.Helper()
	s, err := e.mem.ForResource(storage.ResourceConfig{Codec: unstructured.UnstructuredJSONScheme,
		NewFunc:        func() runtime.Object { return &unstructured.Unstructured{} },
		NewListFunc:    func() runtime.Object { return &unstructured.UnstructuredList{} },
		ResourcePrefix: "/example.com/widgets", GroupResource: schema.GroupResource{Group: "example.com", Resource: "widgets"}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// widgetsCache is the watch cache behind the widgets' store.
func (e *cachedEnv) widgetsCache(t *testing.T) storage.Interface {
	t.Helper()
	store, ok := e.h.Storage("example.com", "widgets").(*generic.Store)
	if !ok {
		t.Fatal("widgets are not served")
	}
	vs, ok := store.Storage.(*versionedStorage)
	if !ok {
		t.Fatalf("widgets' storage is %T", store.Storage)
	}
	return vs.Interface
}

// listJSON lists key in s at resourceVersion 0 and encodes every item.
func listJSON(t *testing.T, s storage.Interface, key string) []string {
	t.Helper()
	list := &unstructured.UnstructuredList{}
	opts := storage.ListOptions{ResourceVersion: "0", Recursive: true, Predicate: storage.Everything}
	if err := s.GetList(context.Background(), key, opts, list); err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(list.Items))
	for i := range list.Items {
		b, err := json.Marshal(list.Items[i].Object)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = string(b)
	}
	return out
}

// Lists in two versions from many goroutines read the watch cache's
// objects at once: they must convert and default copies, and leave the
// cached objects byte for byte as stored (run with -race).
func TestListsLeaveTheWatchCacheUnchanged(t *testing.T) {
	crd := widgetCRD(apiextv1.NamespaceScoped)
	crd.Spec.Versions = append(crd.Spec.Versions, apiextv1.CustomResourceDefinitionVersion{Name: "v2", Served: true,
		Schema: crd.Spec.Versions[0].Schema})
	e := newCachedEnv(t, nil, crd)
	raw := e.rawWidgets(t)
	for i := range 20 {
		// Stored without spec.color, which the schema defaults on read.
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON([]byte(widget("v1", fmt.Sprintf("w%02d", i), `{"size":1}`))); err != nil {
			t.Fatal(err)
		}
		u.SetNamespace("ns1")
		if err := raw.Create(context.Background(), "/example.com/widgets/ns1/"+u.GetName(), u, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.h.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	stored := listJSON(t, raw, "/example.com/widgets")
	if diff := firstDifference(listJSON(t, e.widgetsCache(t), "/example.com/widgets"), stored); diff != "" {
		t.Fatalf("the cache does not hold what was stored before any list: %s", diff)
	}

	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		version := []string{"v1", "v2"}[g%2]
		wg.Go(func() {
			for range 10 {
				if err := listWidgets(e.server.URL, version); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	if diff := firstDifference(listJSON(t, e.widgetsCache(t), "/example.com/widgets"), stored); diff != "" {
		t.Errorf("lists changed the cached objects: %s", diff)
	}
}

// firstDifference describes the first item of got that is not want's.
func firstDifference(got, want []string) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d items, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			return fmt.Sprintf("item %d is\n%s\nwant\n%s", i, got[i], want[i])
		}
	}
	return ""
}

// listWidgets lists the widgets from the cache in version and checks each
// item is in that version, defaulted.
func listWidgets(url, version string) error {
	resp, err := http.Get(url + "/apis/example.com/" + version + "/namespaces/ns1/widgets?resourceVersion=0")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var list struct {
		Items []struct {
			APIVersion string `json:"apiVersion"`
			Spec       struct {
				Color string `json:"color"`
			} `json:"spec"`
		} `json:"items"`
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("list %s: %s", version, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		return err
	}
	if len(list.Items) != 20 {
		return fmt.Errorf("list %s: %d items, want 20", version, len(list.Items))
	}
	for _, it := range list.Items {
		if it.APIVersion != "example.com/"+version || it.Spec.Color != "red" {
			return fmt.Errorf("list %s: item in %s with color %q, want example.com/%s and the default red", version, it.APIVersion, it.Spec.Color, version)
		}
	}
	return nil
}

// A watch served by the watch cache gets its events defaulted and in the
// version it asked for, as a watch of storage does.
func TestCachedWatchDefaultsAndConverts(t *testing.T) {
	crd := widgetCRD(apiextv1.NamespaceScoped)
	e := newCachedEnv(t, nil, crd)
	raw := e.rawWidgets(t)
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON([]byte(widget("v1", "w1", `{"size":1}`))); err != nil {
		t.Fatal(err)
	}
	u.SetNamespace("ns1")
	if err := raw.Create(context.Background(), "/example.com/widgets/ns1/w1", u, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.h.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(e.server.URL + "/apis/example.com/v1alpha1/namespaces/ns1/widgets?watch=true&resourceVersion=0&timeoutSeconds=5")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ev struct {
		Type   string
		Object struct {
			APIVersion string `json:"apiVersion"`
			Spec       struct {
				Color string `json:"color"`
			} `json:"spec"`
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&ev); err != nil {
		t.Fatal(err)
	}
	if ev.Type != "ADDED" || ev.Object.APIVersion != "example.com/v1alpha1" || ev.Object.Spec.Color != "red" {
		t.Errorf("first event: %+v, want ADDED in example.com/v1alpha1 with the default color red", ev)
	}
	if diff := firstDifference(listJSON(t, e.widgetsCache(t), "/example.com/widgets"), listJSON(t, raw, "/example.com/widgets")); diff != "" {
		t.Errorf("the watch changed the cached object: %s", diff)
	}
}
