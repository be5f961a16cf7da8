package responsewriters

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"runtime"
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
// threshold, every page of a paged list.
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
	const responses = 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range responses {
		respond()
	}
	runtime.ReadMemStats(&after)
	if perResponse := (after.TotalAlloc - before.TotalAlloc) / responses; perResponse > gzipThresholdBytes/2 {
		t.Errorf("%d bytes allocated per response, want the hold buffer reused (under %d)", perResponse, gzipThresholdBytes/2)
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
