package endpoints_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/endpoints"
	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/storage"
)

// bigConfigMaps serves a fixed list the way the watch cache does: every
// List returns a new list whose items are shallow copies of shared items
// (their maps are the cache's), each carrying its kind as decoded objects
// do.
type bigConfigMaps struct {
	items []corev1.ConfigMap
	// cont is the continue token the lists carry, to pin list metadata.
	cont string
	// encs, when set, are the items' encodings, which every list records
	// as its sources, as the watch cache does.
	encs []*storage.ItemEncodings
}

// withSources makes the store's lists say which encodings their items
// have, as the watch cache's do.
func (s *bigConfigMaps) withSources() *bigConfigMaps {
	s.encs = make([]*storage.ItemEncodings, len(s.items))
	for i := range s.encs {
		s.encs[i] = &storage.ItemEncodings{}
	}
	return s
}

const bigPath = "/api/v1/namespaces/ns1/bigconfigmaps"

// newBigConfigMaps holds n configmaps with a payload of size bytes each.
func newBigConfigMaps(n, size int) *bigConfigMaps {
	s := &bigConfigMaps{items: make([]corev1.ConfigMap, n)}
	payload := strings.Repeat("x", size)
	for i := range s.items {
		s.items[i] = corev1.ConfigMap{
			TypeMeta: metav1.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"},
			ObjectMeta: metav1.ObjectMeta{
				Namespace: "ns1", Name: fmt.Sprintf("cm-%05d", i), UID: "uid",
				ResourceVersion: fmt.Sprint(100 + i), Labels: map[string]string{"app": "bench"},
			},
			Data: map[string]string{"payload": payload},
		}
	}
	return s
}

func (s *bigConfigMaps) New() runtime.Object     { return &corev1.ConfigMap{} }
func (s *bigConfigMaps) NewList() runtime.Object { return &corev1.ConfigMapList{} }
func (s *bigConfigMaps) Destroy()                {}
func (s *bigConfigMaps) NamespaceScoped() bool   { return true }

func (s *bigConfigMaps) List(ctx context.Context, _ *metainternalversion.ListOptions) (runtime.Object, error) {
	var remaining *int64
	if s.cont != "" {
		n := int64(7)
		remaining = &n
	}
	list := &corev1.ConfigMapList{
		ListMeta: metav1.ListMeta{ResourceVersion: "20000", Continue: s.cont, RemainingItemCount: remaining},
		Items:    slices.Clone(s.items),
	}
	if s.encs != nil {
		storage.RecordListSources(ctx, list, s.encs)
	}
	return list, nil
}

// ConvertToTable renders a name and a data count column.
func (s *bigConfigMaps) ConvertToTable(_ context.Context, obj runtime.Object, _ runtime.Object) (*metav1.Table, error) {
	list, ok := obj.(*corev1.ConfigMapList)
	if !ok {
		return nil, fmt.Errorf("unexpected %T", obj)
	}
	table := &metav1.Table{
		ListMeta: list.ListMeta,
		ColumnDefinitions: []metav1.TableColumnDefinition{
			{Name: "Name", Type: "string", Format: "name"},
			{Name: "Data", Type: "integer"},
		},
		Rows: make([]metav1.TableRow, len(list.Items)),
	}
	for i := range list.Items {
		cm := &list.Items[i]
		table.Rows[i] = metav1.TableRow{Cells: []any{cm.Name, int64(len(cm.Data))}, Object: runtime.RawExtension{Object: cm}}
	}
	return table, nil
}

var _ rest.Lister = (*bigConfigMaps)(nil)

// withBigConfigMaps serves s as "bigconfigmaps" beside the test env's
// resources.
func withBigConfigMaps(s *bigConfigMaps) func(*endpoints.APIGroupVersion) {
	return func(g *endpoints.APIGroupVersion) { g.Storage["bigconfigmaps"] = s }
}

// countingWriter is a ResponseWriter that keeps nothing: it counts the
// body's bytes and remembers the largest single write.
type countingWriter struct {
	header   http.Header
	code     int
	bytes    int
	maxWrite int
}

func newCountingWriter() *countingWriter { return &countingWriter{header: http.Header{}} }

func (w *countingWriter) Header() http.Header { return w.header }
func (w *countingWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}

func (w *countingWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	w.bytes += len(p)
	w.maxWrite = max(w.maxWrite, len(p))
	return len(p), nil
}

// listAccepts are the Accept headers of the list encodings.
var listAccepts = []struct{ name, accept string }{
	{"json", "application/json"},
	{"protobuf", "application/vnd.kubernetes.protobuf"},
	{"table", tableAccept},
	{"partial-json", "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"},
	{"partial-protobuf", "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"},
}

// BenchmarkList10kConfigMaps measures the handler's list path alone (no
// storage copy, no network): 10,000 configmaps of 1 KiB encoded into a
// writer that keeps nothing, in every list encoding, plain and gzipped.
func BenchmarkList10kConfigMaps(b *testing.B) {
	env := newTestEnv(b, withBigConfigMaps(newBigConfigMaps(10000, 1024)))
	cached := newTestEnv(b, withBigConfigMaps(newBigConfigMaps(10000, 1024).withSources()))
	accepts := append(slices.Clone(listAccepts), struct{ name, accept string }{"json-cached", "application/json"})
	for _, a := range accepts {
		env := env
		if a.name == "json-cached" {
			env = cached
		}
		for _, gzip := range []bool{false, true} {
			name := a.name
			if gzip {
				name += "+gzip"
			}
			b.Run(name, func(b *testing.B) {
				var body int
				for b.Loop() {
					req := httptest.NewRequest(http.MethodGet, bigPath, nil)
					req.Header.Set("Accept", a.accept)
					if gzip {
						req.Header.Set("Accept-Encoding", "gzip")
					}
					w := newCountingWriter()
					env.handler.ServeHTTP(w, req)
					if w.code != http.StatusOK {
						b.Fatalf("code %d", w.code)
					}
					body = w.bytes
				}
				b.ReportMetric(float64(body), "body-bytes")
			})
		}
	}
}
