package cacher

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/metrics"
	"github.com/kapi-dev/kapi/internal/storage/watchqueue"
)

// BenchmarkDispatch is the dispatcher's own cost per change: one change
// fanned out to 100 watchers of its namespace, each of which takes it at
// once, without the watchers' goroutines or the clients behind them, with
// the metrics recorded.
func BenchmarkDispatch(b *testing.B) {
	m, err := metrics.New(prometheus.NewRegistry())
	if err != nil {
		b.Fatal(err)
	}
	d := newDispatcher(time.Minute, slog.New(slog.DiscardHandler), m.WatchCache(schema.GroupResource{Resource: "configmaps"}))
	// A finished watcher takes every offer without a reader.
	done, cancel := context.WithCancel(context.Background())
	cancel()
	for range 100 {
		d.add(&cacheWatcher{key: "/configmaps/bench/", recursive: true, pred: storage.Everything,
			ctx: done, cancel: cancel, buf: watchqueue.New[delivery](watcherBufferSize)})
	}
	ev := &event{typ: watch.Modified, key: "/configmaps/bench/a", obj: configMap("bench", "a", nil)}
	b.ReportAllocs()
	var rv uint64
	for b.Loop() {
		rv++
		d.dispatch(dispatchItem{ev: ev, rv: rv})
	}
}
