package controlplane

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Media types the benchmarks compare.
var benchMediaTypes = map[string]string{
	"json":     "application/json",
	"protobuf": "application/vnd.kubernetes.protobuf",
}

// fillConfigMaps creates n 1 KiB configmaps in "bench", many at a time.
func fillConfigMaps(tb testing.TB, s *benchServer, n int) {
	tb.Helper()
	cs := kubernetes.New(s.restClient("application/vnd.kubernetes.protobuf"))
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	const workers = 32
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				if _, err := cs.CoreV1().ConfigMaps("bench").Create(context.Background(), newBenchConfigMap(i), metav1.CreateOptions{}); err != nil {
					select {
					case errs <- err:
					default:
					}
					return
				}
			}
		})
	}
	wg.Wait()
	select {
	case err := <-errs:
		tb.Fatal(err)
	default:
	}
}

// reportPercentiles reports the p50 and p99 of durations in milliseconds.
func reportPercentiles(b *testing.B, durations []time.Duration, unit string) {
	if len(durations) == 0 {
		return
	}
	slices.Sort(durations)
	at := func(q float64) float64 {
		return float64(durations[int(q*float64(len(durations)-1))]) / float64(time.Millisecond)
	}
	b.ReportMetric(at(0.50), "p50-"+unit)
	b.ReportMetric(at(0.99), "p99-"+unit)
}

// BenchmarkList10kConfigMaps lists 10,000 configmaps of 1 KiB from the
// watch cache in front of an embedded etcd: with resourceVersion=0 (any
// cached state) and as a consistent list (""), each in JSON and protobuf.
// The time is the client's: request, server, transfer, no client decode.
func BenchmarkList10kConfigMaps(b *testing.B) {
	s := startServer(b, "etcd3")
	fillConfigMaps(b, s, 10000)
	for _, media := range []string{"json", "protobuf"} {
		for _, rv := range []string{"0", ""} {
			b.Run(fmt.Sprintf("%s/resourceVersion=%q", media, rv), func(b *testing.B) {
				client := s.restClient(benchMediaTypes[media])
				var durations []time.Duration
				for b.Loop() {
					req := client.Get().Namespace("bench").Resource("configmaps")
					if rv != "" {
						req = req.Param("resourceVersion", rv)
					}
					start := time.Now()
					body, err := req.DoRaw(context.Background())
					durations = append(durations, time.Since(start))
					if err != nil || len(body) < 10000*1024 {
						b.Fatalf("list: %v (%d bytes)", err, len(body))
					}
				}
				reportPercentiles(b, durations, "ms")
			})
		}
	}
}

// BenchmarkWatchFanout keeps 1,000 watches open on one namespace and
// updates a configmap in it 100 times a second; each op is one update.
// It reports the delay from sending an update to each watcher reading the
// event, and the CPU the whole process (server and the 1,000 clients)
// spent per update.
func BenchmarkWatchFanout(b *testing.B) {
	const watchers = 1000
	const interval = 10 * time.Millisecond // 100 updates a second
	s := startServer(b, "memory")
	cs := kubernetes.New(s.restClient("application/vnd.kubernetes.protobuf"))
	cm, err := cs.CoreV1().ConfigMaps("bench").Create(context.Background(), newBenchConfigMap(0), metav1.CreateOptions{})
	if err != nil {
		b.Fatal(err)
	}
	fan := newFanout(b, s.restCfg, watchers, cm.ResourceVersion)

	var sent sync.Map // resourceVersion → time the update was sent
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	cpuStart := processCPU()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		<-ticker.C
		cm.Data["payload"] = strconv.Itoa(i)
		start := time.Now()
		updated, err := cs.CoreV1().ConfigMaps("bench").Update(context.Background(), cm, metav1.UpdateOptions{})
		if err != nil {
			b.Fatal(err)
		}
		sent.Store(updated.ResourceVersion, start)
		cm = updated
	}
	delays := fan.collect(b, cm.ResourceVersion, &sent)
	b.StopTimer()
	b.ReportMetric(float64(processCPU()-cpuStart)/float64(time.Millisecond)/float64(b.N), "cpu-ms/update")
	reportPercentiles(b, delays, "delay-ms")
}

// fanout is a set of raw watch streams read by one goroutine each.
type fanout struct {
	mu       sync.Mutex
	received map[string][]time.Time // resourceVersion → when each watcher read it
	lastSeen []string
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

func newFanout(b *testing.B, cfg *rest.Config, n int, fromRV string) *fanout {
	ctx, cancel := context.WithCancel(context.Background())
	f := &fanout{received: map[string][]time.Time{}, lastSeen: make([]string, n), cancel: cancel}
	b.Cleanup(func() { cancel(); f.wg.Wait() })
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		b.Fatal(err)
	}
	url := cfg.Host + "/api/v1/namespaces/bench/configmaps?watch=1&resourceVersion=" + fromRV
	opened := make(chan error, n)
	for i := range n {
		f.wg.Go(func() { f.watch(ctx, httpClient, url, i, opened) })
	}
	for range n {
		if err := <-opened; err != nil {
			b.Fatal(err)
		}
	}
	return f
}

// watch reads one JSON watch stream, noting when each resourceVersion
// arrives; decoding only the resourceVersion keeps the client cheap.
func (f *fanout) watch(ctx context.Context, client *http.Client, url string, i int, opened chan<- error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := client.Do(req)
	if err != nil {
		opened <- err
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		opened <- fmt.Errorf("watch: %s", resp.Status)
		return
	}
	opened <- nil
	var ev struct {
		Object struct {
			Metadata struct {
				ResourceVersion string `json:"resourceVersion"`
			} `json:"metadata"`
		} `json:"object"`
	}
	dec := json.NewDecoder(bufio.NewReader(resp.Body))
	for dec.Decode(&ev) == nil {
		now := time.Now()
		rv := ev.Object.Metadata.ResourceVersion
		f.mu.Lock()
		f.received[rv] = append(f.received[rv], now)
		f.lastSeen[i] = rv
		f.mu.Unlock()
	}
}

// collect waits until every watcher has read lastRV and returns the
// delivery delay of every (update, watcher) pair.
func (f *fanout) collect(b *testing.B, lastRV string, sent *sync.Map) []time.Duration {
	deadline := time.Now().Add(time.Minute)
	for {
		f.mu.Lock()
		done := len(f.received[lastRV]) == len(f.lastSeen)
		f.mu.Unlock()
		if done {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("watchers did not all receive resourceVersion %s within a minute", lastRV)
		}
		time.Sleep(10 * time.Millisecond)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var delays []time.Duration
	sent.Range(func(rv, start any) bool {
		for _, at := range f.received[rv.(string)] {
			delays = append(delays, at.Sub(start.(time.Time)))
		}
		return true
	})
	return delays
}
