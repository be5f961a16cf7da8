package cacher

import (
	"context"
	"fmt"
	goruntime "runtime"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/memory"
	"github.com/kapi-dev/kapi/internal/storage/storagetest"
)

// podResource is the ResourceConfig of pods stored as protobuf.
func podResource() storage.ResourceConfig {
	return storage.ResourceConfig{
		Codec:          storagetest.ProtobufCodec(storagetest.NewScheme()),
		NewFunc:        func() runtime.Object { return &corev1.Pod{} },
		NewListFunc:    func() runtime.Object { return &corev1.PodList{} },
		ResourcePrefix: "/pods",
	}
}

// podAttrs gives a pod's labels and the fields node-scoped watches use.
func podAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return nil, nil, fmt.Errorf("not a pod: %T", obj)
	}
	return labels.Set(pod.Labels), fields.Set{
		"metadata.name":      pod.Name,
		"metadata.namespace": pod.Namespace,
		"spec.nodeName":      pod.Spec.NodeName,
		"status.phase":       string(pod.Status.Phase),
	}, nil
}

func nodePredicate(tb testing.TB, node string) storage.SelectionPredicate {
	tb.Helper()
	fs, err := fields.ParseSelector("spec.nodeName=" + node)
	if err != nil {
		tb.Fatal(err)
	}
	return storage.SelectionPredicate{Label: labels.Everything(), Field: fs, GetAttrs: podAttrs}
}

// processCPU is the CPU time (user and system) the process used so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkNodeWatchDispatch is the kubelet pattern: one watcher per node
// on every pod, selecting its node's pods with spec.nodeName=node-i, and
// pod updates at a steady 100 per second spread over the nodes. It reports
// the process's CPU time per update (write, cache, dispatch and delivery)
// besides the wall time, and checks every update reaches its one watcher.
func BenchmarkNodeWatchDispatch(b *testing.B) {
	for _, watchers := range []int{200, 10000} {
		b.Run(fmt.Sprintf("watchers=%d", watchers), func(b *testing.B) {
			benchNodeWatch(b, watchers, 10*time.Millisecond)
		})
	}
}

func benchNodeWatch(b *testing.B, nodes int, interval time.Duration) {
	s, err := cachedBackend(b, memory.New()).ForResource(podResource())
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := range nodes {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: fmt.Sprintf("pod-%05d", i)},
			Spec:       corev1.PodSpec{NodeName: fmt.Sprintf("node-%d", i)},
		}
		if err := s.Create(ctx, "/pods/bench/"+pod.Name, pod, nil); err != nil {
			b.Fatal(err)
		}
	}
	var received, closed atomic.Int64
	for i := range nodes {
		w, err := s.Watch(ctx, "/pods", storage.ListOptions{ResourceVersion: "0",
			SendInitialEvents: new(false), Recursive: true, Predicate: nodePredicate(b, fmt.Sprintf("node-%d", i))})
		if err != nil {
			b.Fatal(err)
		}
		go func() {
			defer w.Stop()
			for ev := range w.ResultChan() {
				if ev.Type == watch.Modified {
					received.Add(1)
				}
			}
			if ctx.Err() == nil {
				closed.Add(1)
			}
		}()
	}
	update := func(n int) {
		key := fmt.Sprintf("/pods/bench/pod-%05d", n%nodes)
		err := s.GuaranteedUpdate(ctx, key, &corev1.Pod{}, false, nil,
			func(in runtime.Object, _ storage.ResponseMeta) (runtime.Object, error) {
				pod := in.(*corev1.Pod).DeepCopy()
				pod.Annotations = map[string]string{"n": fmt.Sprint(n)}
				return pod, nil
			})
		if err != nil {
			b.Fatal(err)
		}
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	b.ReportAllocs()
	goruntime.GC() // the setup's garbage is not the updates' cost
	cpu := processCPU()
	n := 0
	for b.Loop() {
		<-tick.C
		update(n)
		n++
	}
	deadline := time.Now().Add(time.Minute)
	for received.Load() < int64(n) && closed.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	b.StopTimer()
	b.ReportMetric(float64(processCPU()-cpu)/float64(n), "cpu-ns/event")
	if got := received.Load(); got != int64(n) || closed.Load() > 0 {
		b.Fatalf("watchers received %d of %d updates, %d watchers closed", got, n, closed.Load())
	}
}
