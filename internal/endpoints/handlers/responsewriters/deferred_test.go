package responsewriters

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"testing"
)

// discardResponse keeps nothing of a response.
type discardResponse struct{ header http.Header }

func (d *discardResponse) Header() http.Header         { return d.header }
func (d *discardResponse) WriteHeader(int)             {}
func (d *discardResponse) Write(p []byte) (int, error) { return len(p), nil }

// TestDeferredWriterReusesItsHoldBuffer: the buffer that holds back a
// body's start is reused across responses. Grown by appends, it cost
// about twice the threshold in allocations on every response past the
// threshold, every page of a paged list. The pool may still drop a buffer
// now and then (a collection empties it, and under the race detector Put
// drops one in four on purpose), so the typical response is what must
// not allocate one.
func TestDeferredWriterReusesItsHoldBuffer(t *testing.T) {
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	chunk := bytes.Repeat([]byte("x"), 4<<10)
	respond := func() {
		dw := newDeferredWriter(&discardResponse{header: http.Header{}}, req, "application/json", http.StatusOK)
		for range 2 * gzipThresholdBytes / len(chunk) {
			if _, err := dw.Write(chunk); err != nil {
				t.Fatal(err)
			}
		}
		if err := dw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	respond() // fills the pool
	const responses = 41
	allocated := make([]uint64, 0, responses)
	var before, after runtime.MemStats
	for range responses {
		runtime.ReadMemStats(&before)
		respond()
		runtime.ReadMemStats(&after)
		allocated = append(allocated, after.TotalAlloc-before.TotalAlloc)
	}
	slices.Sort(allocated)
	if median := allocated[responses/2]; median > gzipThresholdBytes/2 {
		t.Errorf("the median response allocated %d bytes, want the hold buffer reused (under %d)", median, gzipThresholdBytes/2)
	}
}

// TestDeferredWriterHeldBytesSurviveReuse: a body held back whole (under
// the threshold) is sent intact even though its buffer then goes back to
// the pool for the next response.
func TestDeferredWriterHeldBytesSurviveReuse(t *testing.T) {
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	for i := range 3 {
		rec := httptest.NewRecorder()
		dw := newDeferredWriter(rec, req, "application/json", http.StatusOK)
		body := bytes.Repeat([]byte{byte('a' + i)}, 1000)
		if _, err := dw.Write(body); err != nil {
			t.Fatal(err)
		}
		if err := dw.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(rec.Body.Bytes(), body) {
			t.Fatalf("response %d: got %q...", i, rec.Body.Bytes()[:10])
		}
	}
}
