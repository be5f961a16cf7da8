package openapi

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"
)

// BenchmarkRetainedHeap measures what the service keeps, as the server
// starts it: the live heap (after a GC) beyond the scheme once every group
// version is added and Build has run, then after the first request for
// apis/apps/v1 and after the first /openapi/v2, with the time of the
// first and second of each request. Read the metrics, not ns/op:
//
//	go test -run '^$' -bench RetainedHeap -benchtime 3x ./internal/endpoints/openapi/
func BenchmarkRetainedHeap(b *testing.B) {
	var m memoryRun
	for b.Loop() {
		b.StopTimer()
		m = measureMemory(b)
		b.StartTimer()
	}
	b.ReportMetric(m.afterBuild/1e6, "MB-after-build")
	b.ReportMetric(m.afterV3/1e6, "MB-after-v3-apps")
	b.ReportMetric(m.afterV2/1e6, "MB-after-v2")
	b.ReportMetric(float64(m.build.Microseconds())/1e3, "ms-build")
	b.ReportMetric(float64(m.v3[0].Microseconds())/1e3, "ms-v3-first")
	b.ReportMetric(float64(m.v3[1].Microseconds())/1e3, "ms-v3-second")
	b.ReportMetric(float64(m.v2[0].Microseconds())/1e3, "ms-v2-first")
	b.ReportMetric(float64(m.v2[1].Microseconds())/1e3, "ms-v2-second")
}

type memoryRun struct {
	afterBuild, afterV3, afterV2 float64
	build                        time.Duration
	v3, v2                       [2]time.Duration
}

func measureMemory(b *testing.B) memoryRun {
	scheme, err := newInstalledScheme()
	if err != nil {
		b.Fatal(err)
	}
	resources, storage := schemeResources(scheme)
	base := liveHeap()

	var m memoryRun
	start := time.Now()
	s := NewService(scheme, Info{})
	for gv, list := range resources {
		s.AddGroupVersion(gv, list, storage[gv])
	}
	if err := s.Build(); err != nil {
		b.Fatal(err)
	}
	m.build = time.Since(start)
	m.afterBuild = liveHeap() - base

	h := serve(s)
	for i := range m.v3 {
		m.v3[i] = timedGet(b, h, "/openapi/v3/apis/apps/v1")
	}
	m.afterV3 = liveHeap() - base
	for i := range m.v2 {
		m.v2[i] = timedGet(b, h, "/openapi/v2")
	}
	m.afterV2 = liveHeap() - base
	runtime.KeepAlive(s)
	runtime.KeepAlive(scheme)
	runtime.KeepAlive(resources)
	runtime.KeepAlive(storage)
	return m
}

func timedGet(b *testing.B, h http.Handler, target string) time.Duration {
	start := time.Now()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
	d := time.Since(start)
	if rec.Code != http.StatusOK {
		b.Fatalf("%s: status %d", target, rec.Code)
	}
	return d
}

// liveHeap is the bytes of live heap objects after a full collection.
func liveHeap() float64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapAlloc)
}
