package handlers

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
)

// flushCounter records what was written and flushed: flushed is the body
// as the client had it at each flush.
type flushCounter struct {
	*httptest.ResponseRecorder
	mu      sync.Mutex
	flushed []string
}

func (f *flushCounter) Flush() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.flushed = append(f.flushed, f.Body.String())
	f.ResponseRecorder.Flush()
}

// TestStreamEventsFlushesWhenIdle: events ready together go out in one
// flush (not one system call and TLS record each), and every event is
// flushed before the stream waits for the next one.
func TestStreamEventsFlushesWhenIdle(t *testing.T) {
	codecs := serializer.NewCodecFactory(scheme.Scheme)
	info, ok := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
	if !ok {
		t.Fatal("no JSON serializer")
	}
	scope := &RequestScope{Serializer: codecs, Kind: corev1.SchemeGroupVersion.WithKind("ConfigMap"), Creater: scheme.Scheme}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	enc, err := scope.newWatchEncoder(ctx, info, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := watch.NewFakeWithChanSize(100, false)
	for _, name := range []string{"a", "b", "c"} {
		w.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}})
	}
	rec := &flushCounter{ResponseRecorder: httptest.NewRecorder()}
	done := make(chan struct{})
	go func() {
		defer close(done)
		streamEvents(ctx, scope, rec, info, w, enc)
	}()
	// The stream flushes a burst once it has nothing ready; a later
	// event, once written, is flushed before the stream waits again.
	waitFor(t, func() bool { return strings.Contains(lastFlushed(rec), `"name":"c"`) })
	w.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "ns"}})
	waitFor(t, func() bool { return strings.Contains(lastFlushed(rec), `"name":"d"`) })
	cancel()
	<-done
	// The header's flush, the burst's, d's (and possibly an empty one
	// before d arrived).
	if n := len(rec.flushed); n > 4 {
		t.Errorf("%d flushes for a burst of 3 events and one more, want at most 4:\n%q", n, rec.flushed)
	}
	for i, body := range rec.flushed {
		if strings.Contains(body, `"name":"a"`) && !strings.Contains(body, `"name":"c"`) {
			t.Errorf("flush %d went out in the middle of the burst: %q", i, body)
		}
	}
	if got := bytes.Count(rec.Body.Bytes(), []byte(`"type":"ADDED"`)); got != 4 {
		t.Errorf("%d ADDED events written, want 4", got)
	}
}

// lastFlushed is the body at the last flush.
func lastFlushed(rec *flushCounter) string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.flushed) == 0 {
		return ""
	}
	return rec.flushed[len(rec.flushed)-1]
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 10s: the stream held an event back")
		}
		time.Sleep(time.Millisecond)
	}
}

var _ http.Flusher = (*flushCounter)(nil)
