package endpoints_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"

	"github.com/kapi-dev/kapi/internal/endpoints"
)

// startWatch opens a watch on a real server; the caller reads the body.
func startWatch(t *testing.T, env *testEnv, path string, headers ...string) *http.Response {
	t.Helper()
	srv := httptest.NewServer(env.handler)
	t.Cleanup(srv.Close)
	req, err := http.NewRequest("GET", srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("watch: %d %s", resp.StatusCode, readAll(resp.Body))
	}
	return resp
}

// jsonEvent is a watch event as it is on the wire.
type jsonEvent struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

func nextJSONEvent(t *testing.T, lines *bufio.Scanner) (jsonEvent, map[string]any) {
	t.Helper()
	if !lines.Scan() {
		t.Fatalf("stream ended: %v", lines.Err())
	}
	var ev jsonEvent
	if err := json.Unmarshal(lines.Bytes(), &ev); err != nil {
		t.Fatalf("line %q: %v", lines.Text(), err)
	}
	obj := map[string]any{}
	if err := json.Unmarshal(ev.Object, &obj); err != nil {
		t.Fatalf("object %s: %v", ev.Object, err)
	}
	return ev, obj
}

func nameOf(obj map[string]any) string {
	m, _ := obj["metadata"].(map[string]any)
	name, _ := m["name"].(string)
	return name
}

// bothWatchKinds runs test over a store whose watches are read from
// ResultChan and over one whose watches the handler pulls (the watch
// cache's).
func bothWatchKinds(t *testing.T, test func(t *testing.T, pulled bool)) {
	for _, pulled := range []bool{false, true} {
		t.Run(map[bool]string{false: "channel", true: "pulled"}[pulled], func(t *testing.T) { test(t, pulled) })
	}
}

func TestWatchJSON(t *testing.T) { bothWatchKinds(t, testWatchJSON) }

func testWatchJSON(t *testing.T, pulled bool) {
	env := newTestEnv(t)
	env.store.pulled = pulled
	env.seed(t, seedA()...)
	resp := startWatch(t, env, cmPath+"?watch=true")
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	lines := bufio.NewScanner(resp.Body)
	// resourceVersion "" asks for the current state first (watch-list
	// defaulting, as upstream since 1.34).
	ev, obj := nextJSONEvent(t, lines)
	if ev.Type != "ADDED" || nameOf(obj) != "a" || obj["kind"] != "ConfigMap" || obj["apiVersion"] != "v1" {
		t.Fatalf("first event %s %s", ev.Type, ev.Object)
	}
	if rec := env.do(t, "POST", cmPath, `{"metadata":{"name":"b"}}`); rec.Code != http.StatusCreated {
		t.Fatal(rec.Body)
	}
	if rec := env.do(t, "DELETE", cmAPath, ""); rec.Code != http.StatusOK {
		t.Fatal(rec.Body)
	}
	for _, want := range []struct{ typ, name string }{{"ADDED", "b"}, {"DELETED", "a"}} {
		ev, obj := nextJSONEvent(t, lines)
		if ev.Type != want.typ || nameOf(obj) != want.name {
			t.Errorf("event %s %s, want %s %s", ev.Type, nameOf(obj), want.typ, want.name)
		}
	}
}

func TestWatchProtobuf(t *testing.T) {
	env := newTestEnv(t)
	env.seed(t, seedA()...)
	resp := startWatch(t, env, "/api/v1/watch/namespaces/ns1/configmaps", "Accept", runtime.ContentTypeProtobuf)
	if ct := resp.Header.Get("Content-Type"); ct != "application/vnd.kubernetes.protobuf;stream=watch" {
		t.Errorf("Content-Type %q", ct)
	}
	info, _ := runtime.SerializerInfoForMediaType(env.codecs.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	frames := info.StreamSerializer.Framer.NewFrameReader(resp.Body)
	dec := streaming.NewDecoder(frames, info.StreamSerializer.Serializer)
	ev := &metav1.WatchEvent{}
	if _, _, err := dec.Decode(nil, ev); err != nil {
		t.Fatal(err)
	}
	obj, _, err := env.codecs.UniversalDeserializer().Decode(ev.Object.Raw, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cm, ok := obj.(*corev1.ConfigMap); ev.Type != "ADDED" || !ok || cm.Name != "a" {
		t.Errorf("event %s %#v", ev.Type, obj)
	}
}

func TestWatchTable(t *testing.T) {
	env := newTestEnv(t)
	env.seed(t, seedA()...)
	resp := startWatch(t, env, cmPath+"?watch=true", "Accept", tableAccept)
	lines := bufio.NewScanner(resp.Body)
	_, first := nextJSONEvent(t, lines)
	if first["kind"] != "Table" || first["columnDefinitions"] == nil {
		t.Fatalf("first event object %v, want a Table with columns", first)
	}
	if rec := env.do(t, "POST", cmPath, `{"metadata":{"name":"b"}}`); rec.Code != http.StatusCreated {
		t.Fatal(rec.Body)
	}
	_, second := nextJSONEvent(t, lines)
	if second["kind"] != "Table" || second["columnDefinitions"] != nil {
		t.Errorf("second event object %v, want a Table without columns", second)
	}
}

func TestWatchListBookmark(t *testing.T) {
	env := newTestEnv(t)
	env.seed(t, seedA()...)
	resp := startWatch(t, env, cmPath+"?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true")
	lines := bufio.NewScanner(resp.Body)
	if ev, obj := nextJSONEvent(t, lines); ev.Type != "ADDED" || nameOf(obj) != "a" {
		t.Fatalf("event %s %s", ev.Type, ev.Object)
	}
	ev, _ := nextJSONEvent(t, lines)
	if ev.Type != "BOOKMARK" || !strings.Contains(string(ev.Object), `"k8s.io/initial-events-end":"true"`) {
		t.Errorf("event %s %s, want the initial-events-end bookmark", ev.Type, ev.Object)
	}
}

func TestWatchOneObject(t *testing.T) {
	env := newTestEnv(t)
	env.seed(t, seedA()...)
	resp := startWatch(t, env, "/api/v1/watch/namespaces/ns1/configmaps/a")
	lines := bufio.NewScanner(resp.Body)
	nextJSONEvent(t, lines)
	for _, body := range []string{`{"metadata":{"name":"b"}}`} {
		env.do(t, "POST", cmPath, body)
	}
	env.do(t, "PATCH", cmAPath, `{"data":{"k":"2"}}`, "Content-Type", "application/merge-patch+json")
	if ev, obj := nextJSONEvent(t, lines); ev.Type != "MODIFIED" || nameOf(obj) != "a" {
		t.Errorf("event %s %s, want a only", ev.Type, ev.Object)
	}
}

func TestWatchNotAcceptable(t *testing.T) {
	env := newTestEnv(t)
	rec := env.do(t, "GET", cmPath+"?watch=true", "", "Accept", "application/yaml")
	want := "only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch"
	// The error comes back in YAML, which folds long lines.
	body := strings.ReplaceAll(rec.Body.String(), "\n  ", " ")
	if rec.Code != http.StatusNotAcceptable || !strings.Contains(body, want) {
		t.Errorf("%d %s, want 406 %q", rec.Code, rec.Body, want)
	}
}

// serveInBubble runs a watch request in a synctest bubble and returns
// when the handler does, with the fake time it took.
func serveInBubble(t *testing.T, env *testEnv, ctx context.Context, path string) (time.Duration, *httptest.ResponseRecorder) {
	t.Helper()
	rec := httptest.NewRecorder()
	start := time.Now()
	env.handler.ServeHTTP(rec, httptest.NewRequestWithContext(ctx, "GET", path, nil))
	return time.Since(start), rec
}

func TestWatchEnds(t *testing.T) { bothWatchKinds(t, testWatchEnds) }

func testWatchEnds(t *testing.T, pulled bool) {
	t.Run("timeoutSeconds", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			env := newTestEnv(t)
			env.store.pulled = pulled
			took, rec := serveInBubble(t, env, t.Context(), cmPath+"?watch=true&timeoutSeconds=30")
			if took != 30*time.Second || rec.Code != http.StatusOK {
				t.Errorf("ended after %v with %d, want 30s 200", took, rec.Code)
			}
		})
	})
	t.Run("random timeout in [min, 2*min)", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			env := newTestEnv(t, func(g *endpoints.APIGroupVersion) { g.MinRequestTimeout = 10 * time.Second })
			env.store.pulled = pulled
			took, _ := serveInBubble(t, env, t.Context(), cmPath+"?watch=true")
			if took < 10*time.Second || took >= 20*time.Second {
				t.Errorf("ended after %v", took)
			}
		})
	})
	t.Run("client goes away", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			env := newTestEnv(t)
			env.store.pulled = pulled
			ctx, cancel := context.WithCancel(t.Context())
			time.AfterFunc(time.Second, cancel)
			if took, _ := serveInBubble(t, env, ctx, cmPath+"?watch=true"); took != time.Second {
				t.Errorf("ended after %v, want 1s", took)
			}
		})
	})
	t.Run("storage closes the watch", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			env := newTestEnv(t)
			env.store.pulled = pulled
			time.AfterFunc(time.Second, func() {
				env.store.mu.Lock()
				defer env.store.mu.Unlock()
				for _, w := range env.store.watchers {
					w.Stop()
				}
			})
			if took, _ := serveInBubble(t, env, t.Context(), cmPath+"?watch=true"); took != time.Second {
				t.Errorf("ended after %v, want 1s", took)
			}
		})
	})
}
