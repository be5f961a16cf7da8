package cacher

import (
	"context"
	"fmt"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/memory"
	"github.com/kapi-dev/kapi/internal/storage/storagetest"
)

// benchStore returns a cached configmap store over a fresh memory backend.
func benchStore(b *testing.B) storage.Interface {
	b.Helper()
	s, err := cachedBackend(b, memory.New()).ForResource(storagetest.ConfigMapResource())
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkListFromCache lists 10,000 configmaps of about 1 KiB each from
// the cache, at resourceVersion "0" and as a consistent read.
func BenchmarkListFromCache(b *testing.B) {
	s := benchStore(b)
	ctx := context.Background()
	payload := strings.Repeat("x", 1000)
	const objects = 10000
	for i := range objects {
		cm := configMap("bench", fmt.Sprintf("cm-%05d", i), map[string]string{"app": "bench"})
		cm.Data["payload"] = payload
		if err := s.Create(ctx, storagetest.ConfigMapKey("bench", cm.Name), cm, nil); err != nil {
			b.Fatal(err)
		}
	}
	for _, rv := range []string{"0", ""} {
		b.Run(fmt.Sprintf("rv=%q", rv), func(b *testing.B) {
			opts := storage.ListOptions{ResourceVersion: rv, Recursive: true, Predicate: storage.Everything}
			for b.Loop() {
				list := &corev1.ConfigMapList{}
				if err := s.GetList(ctx, "/configmaps", opts, list); err != nil {
					b.Fatal(err)
				}
				if len(list.Items) != objects {
					b.Fatalf("listed %d configmaps, want %d", len(list.Items), objects)
				}
			}
		})
	}
}

// BenchmarkWatchFanout updates one configmap at a steady rate while 1,000
// watchers of its namespace receive every change, and reports the delay
// from the write to each delivery.
func BenchmarkWatchFanout(b *testing.B) {
	const (
		watchers = 1000
		interval = 5 * time.Millisecond // 200 updates per second
	)
	s := benchStore(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	key := storagetest.ConfigMapKey("bench", "hot")
	if err := s.Create(ctx, key, configMap("bench", "hot", nil), nil); err != nil {
		b.Fatal(err)
	}

	// Every watcher's consumer reports its delays on done.
	done := make(chan []time.Duration, watchers)
	var stop sync.WaitGroup
	for range watchers {
		w, err := s.Watch(ctx, "/configmaps/bench", storage.ListOptions{
			ResourceVersion: "0", SendInitialEvents: new(false), Recursive: true, Predicate: storage.Everything})
		if err != nil {
			b.Fatal(err)
		}
		stop.Go(func() {
			defer w.Stop()
			var delays []time.Duration
			for ev := range w.ResultChan() {
				accessor, err := meta.Accessor(ev.Object)
				if err != nil {
					continue
				}
				sent, err := strconv.ParseInt(accessor.GetAnnotations()["sent"], 10, 64)
				if err != nil {
					continue // the end marker
				}
				delays = append(delays, time.Since(time.Unix(0, sent)))
				if accessor.GetAnnotations()["last"] == "true" {
					break
				}
			}
			done <- delays
		})
	}

	tick := time.NewTicker(interval)
	defer tick.Stop()
	updates := 0
	write := func(last bool) {
		err := s.GuaranteedUpdate(ctx, key, &corev1.ConfigMap{}, false, nil,
			func(in runtime.Object, _ storage.ResponseMeta) (runtime.Object, error) {
				cm := in.(*corev1.ConfigMap).DeepCopy()
				cm.Annotations = map[string]string{"sent": strconv.FormatInt(time.Now().UnixNano(), 10)}
				if last {
					cm.Annotations["last"] = "true"
				}
				return cm, nil
			})
		if err != nil {
			b.Fatal(err)
		}
		updates++
	}
	for b.Loop() {
		<-tick.C
		write(false)
	}
	write(true)

	var all []time.Duration
	for range watchers {
		delays := <-done
		if len(delays) != updates {
			b.Fatalf("a watcher received %d of %d changes (closed as too slow?)", len(delays), updates)
		}
		all = append(all, delays...)
	}
	stop.Wait()
	slices.Sort(all)
	ms := func(q float64) float64 { return float64(all[int(q*float64(len(all)-1))]) / float64(time.Millisecond) }
	b.ReportMetric(ms(0.50), "p50-ms")
	b.ReportMetric(ms(0.99), "p99-ms")
}

// BenchmarkCacheMemory fills a memory store with 10,000 configmaps of
// 1 KiB, then measures the live heap a cache of them holds: bytes per
// object, and that over the object's encoded (stored) size.
func BenchmarkCacheMemory(b *testing.B) {
	const objects = 10000
	inner := memory.NewWithOptions(memory.Options{HistorySize: 10})
	b.Cleanup(func() { _ = inner.Close() })
	cfg := storagetest.ConfigMapResource()
	s, err := inner.ForResource(cfg)
	if err != nil {
		b.Fatal(err)
	}
	payload := strings.Repeat("x", 1024)
	for i := range objects {
		cm := configMap("bench", fmt.Sprintf("cm-%05d", i), map[string]string{"app": "bench"})
		cm.Data = map[string]string{"payload": payload + strconv.Itoa(i)}
		if err := s.Create(context.Background(), "/configmaps/bench/"+cm.Name, cm, &corev1.ConfigMap{}); err != nil {
			b.Fatal(err)
		}
	}
	sample := &corev1.ConfigMap{}
	if err := s.Get(context.Background(), "/configmaps/bench/cm-00000", storage.GetOptions{}, sample); err != nil {
		b.Fatal(err)
	}
	sample.ResourceVersion = ""
	stored, err := runtime.Encode(cfg.Codec, sample)
	if err != nil {
		b.Fatal(err)
	}
	var perObject float64
	for b.Loop() {
		var before, after goruntime.MemStats
		goruntime.GC()
		goruntime.ReadMemStats(&before)
		c, err := New(Config{Storage: s, ResourcePrefix: cfg.ResourcePrefix, NewFunc: cfg.NewFunc, NewListFunc: cfg.NewListFunc})
		if err != nil {
			b.Fatal(err)
		}
		if err := c.WaitReady(context.Background()); err != nil {
			b.Fatal(err)
		}
		goruntime.GC()
		goruntime.ReadMemStats(&after)
		perObject = float64(after.HeapAlloc-before.HeapAlloc) / objects
		c.Stop()
	}
	b.ReportMetric(perObject, "B-live/object")
	b.ReportMetric(perObject/float64(len(stored)), "x-encoded-size")
}
