package endpoints_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	corev1 "k8s.io/api/core/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/kapi-dev/kapi/internal/endpoints"
)

// TestListItemsHaveNoKind pins kube-apiserver's list wire format: the
// list has its kind and apiVersion, its items have neither (even when
// storage hands out items that carry them), in JSON and in protobuf.
func TestListItemsHaveNoKind(t *testing.T) {
	env := newTestEnv(t, withBigConfigMaps(newBigConfigMaps(3, 10)))

	rec := env.do(t, http.MethodGet, bigPath, "", "Accept", "application/json")
	var list struct {
		Kind, APIVersion string
		Items            []map[string]json.RawMessage
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil || rec.Code != http.StatusOK {
		t.Fatalf("code %d, %v: %s", rec.Code, err, rec.Body)
	}
	if list.Kind != "ConfigMapList" || list.APIVersion != "v1" || len(list.Items) != 3 {
		t.Fatalf("list %s %s with %d items", list.Kind, list.APIVersion, len(list.Items))
	}
	for _, item := range list.Items {
		if item["kind"] != nil || item["apiVersion"] != nil || item["metadata"] == nil {
			t.Errorf("JSON item has kind %s, apiVersion %s", item["kind"], item["apiVersion"])
		}
	}

	rec = env.do(t, http.MethodGet, bigPath, "", "Accept", k8sruntime.ContentTypeProtobuf)
	var unknown k8sruntime.Unknown
	body, ok := bytes.CutPrefix(rec.Body.Bytes(), []byte("k8s\x00"))
	if !ok || unknown.Unmarshal(body) != nil {
		t.Fatalf("not a protobuf envelope: %q", rec.Body.Bytes())
	}
	var pb corev1.ConfigMapList
	if err := pb.Unmarshal(unknown.Raw); err != nil {
		t.Fatal(err)
	}
	if unknown.Kind != "ConfigMapList" || unknown.APIVersion != "v1" || len(pb.Items) != 3 {
		t.Fatalf("protobuf list %s %s with %d items", unknown.Kind, unknown.APIVersion, len(pb.Items))
	}
	for _, item := range pb.Items {
		if item.Kind != "" || item.APIVersion != "" {
			t.Errorf("protobuf item has %+v", item.TypeMeta)
		}
	}
}

// TestStreamedListIsBuffered pins that a list streamed through the
// handler is the response the buffered codecs give: status, headers and
// (decompressed) body, small and large (gzipped), empty and paged lists.
func TestStreamedListIsBuffered(t *testing.T) {
	for _, n := range []int{0, 3, 500} {
		store := newBigConfigMaps(n, 1024)
		store.cont = "next-page"
		streamed := newTestEnv(t, withBigConfigMaps(store))
		buffered := newTestEnv(t, withBigConfigMaps(store), func(g *endpoints.APIGroupVersion) {
			g.Codecs = serializer.NewCodecFactory(g.Scheme)
		})
		for _, accept := range []string{"application/json", k8sruntime.ContentTypeProtobuf, "application/yaml"} {
			for _, encoding := range []string{"", "gzip"} {
				headers := []string{"Accept", accept, "Accept-Encoding", encoding}
				want := buffered.do(t, http.MethodGet, bigPath, "", headers...)
				got := streamed.do(t, http.MethodGet, bigPath, "", headers...)
				for _, h := range []string{"Content-Type", "Content-Encoding", "Vary"} {
					if got.Header().Get(h) != want.Header().Get(h) {
						t.Errorf("%d items, %s %s: %s %q, want %q", n, accept, encoding, h, got.Header().Get(h), want.Header().Get(h))
					}
				}
				if got.Code != want.Code || !bytes.Equal(decoded(t, got), decoded(t, want)) {
					t.Errorf("%d items, %s %s: streamed body (%d) differs from buffered (%d)", n, accept, encoding, got.Code, want.Code)
				}
			}
		}
	}
}

// decoded is the response body, gunzipped when it is gzipped.
func decoded(t *testing.T, rec *httptest.ResponseRecorder) []byte {
	t.Helper()
	if rec.Header().Get("Content-Encoding") != "gzip" {
		return rec.Body.Bytes()
	}
	r, err := gzip.NewReader(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// TestListIsWrittenInPieces pins that no list encoding hands the client a
// whole body at once: every write is at most the gzip threshold (held
// back to decide on gzip) plus one item.
func TestListIsWrittenInPieces(t *testing.T) {
	env := newTestEnv(t, withBigConfigMaps(newBigConfigMaps(10000, 1024)))
	const bound = 128*1024 + 4096
	for _, a := range listAccepts {
		req := httptest.NewRequest(http.MethodGet, bigPath, nil)
		req.Header.Set("Accept", a.accept)
		w := newCountingWriter()
		env.handler.ServeHTTP(w, req)
		if w.code != http.StatusOK || w.bytes < 2*bound {
			t.Fatalf("%s: code %d, %d bytes: not a large list", a.name, w.code, w.bytes)
		}
		if w.maxWrite > bound {
			t.Errorf("%s: a write of %d bytes (body %d)", a.name, w.maxWrite, w.bytes)
		}
	}
}

// pipeResponse is a ResponseWriter whose body goes through a pipe: a
// write blocks until the reader took it, as a slow client makes the
// server wait.
type pipeResponse struct {
	header http.Header
	code   int
	pw     *io.PipeWriter
}

func (w *pipeResponse) Header() http.Header         { return w.header }
func (w *pipeResponse) WriteHeader(code int)        { w.code = code }
func (w *pipeResponse) Write(p []byte) (int, error) { return w.pw.Write(p) }

// liveHeap is the heap in use after full collections; the second one
// empties the sync.Pools, so buffers pooled by earlier requests are not
// counted as already there.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// TestListSlowReaderMemory pins that a response holds a bounded amount of
// memory while a client reads a 10,000-item list slowly: paused after the
// first MiB, the server holds the list itself (which storage returns) and
// less than 2 MiB more (the held-back 128 KiB, encoder buffers, a gzip
// writer's state of about 1 MiB), for a body of more than 10 MiB.
// Buffering the body would hold all of it. Memory is counted, not timed.
func TestListSlowReaderMemory(t *testing.T) {
	store := newBigConfigMaps(10000, 1024)
	env := newTestEnv(t, withBigConfigMaps(store))
	// What the list object itself holds, as the handler gets it.
	base := liveHeap()
	list, _ := store.List(t.Context(), nil)
	listBytes := liveHeap() - base
	runtime.KeepAlive(list)
	list = nil

	const slack = 2 << 20
	for _, c := range []struct{ name, accept, encoding string }{
		{"json", "application/json", ""},
		{"json+gzip", "application/json", "gzip"},
		{"protobuf", k8sruntime.ContentTypeProtobuf, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, bigPath, nil)
			req.Header.Set("Accept", c.accept)
			req.Header.Set("Accept-Encoding", c.encoding)
			pr, pw := io.Pipe()
			w := &pipeResponse{header: http.Header{}, pw: pw}
			base := liveHeap()
			done := make(chan struct{})
			go func() {
				defer close(done)
				env.handler.ServeHTTP(w, req)
				pw.Close()
			}()
			defer func() { pr.Close(); <-done }()

			var body io.Reader = pr
			if c.encoding == "gzip" {
				zr, err := gzip.NewReader(pr)
				if err != nil {
					t.Fatal(err)
				}
				body = zr
			}
			// Read slowly: small reads, then a pause with the server
			// blocked on the client.
			buf := make([]byte, 512)
			read := 0
			for read < 1<<20 {
				n, err := body.Read(buf)
				if err != nil {
					t.Fatalf("after %d bytes: %v", read, err)
				}
				read += n
			}
			held := liveHeap() - base
			rest, err := io.Copy(io.Discard, body)
			if err != nil {
				t.Fatal(err)
			}
			total := int64(read) + rest
			t.Logf("body %d bytes; held %d bytes while paused (list %d)", total, held, listBytes)
			if total < 10<<20 {
				t.Fatalf("body of %d bytes: not a large list", total)
			}
			if held > listBytes+slack {
				t.Errorf("the response held %d bytes beyond its list of %d (bound %d)", held-listBytes, listBytes, slack)
			}
		})
	}
}
