package scheduler

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
)

const (
	benchNodes = 1000
	benchPods  = 10000
)

func benchCluster() []*corev1.Node {
	nodes := make([]*corev1.Node, benchNodes)
	for i := range nodes {
		nodes[i] = testNode(fmt.Sprintf("node-%04d", i), nodeLabels("topology.kubernetes.io/zone", fmt.Sprintf("zone-%d", i%3)),
			allocatable(corev1.ResourceCPU, "32"), allocatable(corev1.ResourceMemory, "128Gi"))
	}
	return nodes
}

// benchPod is a Deployment-like pod: requests, labels of its app.
func benchPod(i int) *corev1.Pod {
	return testPod(fmt.Sprintf("pod-%05d", i), requests("100m", "128Mi"), podLabels("app", fmt.Sprintf("app-%d", i/10)))
}

// BenchmarkScheduleAlgorithm: the scheduling cycle alone (filters,
// scores, assume) for 10,000 pods onto 1,000 nodes.
func BenchmarkScheduleAlgorithm(b *testing.B) {
	pods := make([]*corev1.Pod, benchPods)
	for i := range pods {
		pods[i] = benchPod(i)
	}
	b.ReportAllocs()
	var elapsed time.Duration
	var mallocs uint64
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		s := testScheduler(b, benchCluster(), nil)
		b.StartTimer()
		before, cpuBefore := memMallocs(), cpuTime()
		start := time.Now()
		for _, p := range pods {
			if _, _, err := s.schedule(podKey(p), p); err != nil {
				b.Fatal(err)
			}
		}
		elapsed += time.Since(start)
		mallocs += memMallocs() - before
		cpu += cpuTime() - cpuBefore
	}
	b.ReportMetric(float64(b.N*benchPods)/elapsed.Seconds(), "pods/s")
	b.ReportMetric(float64(mallocs)/float64(b.N*benchPods), "allocs/pod")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N*benchPods), "cpu-µs/pod")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkSchedulerFakeClient: 10,000 pending pods and 1,000 nodes in a
// fake clientset; the Scheduler, through informers, binds them all.
func BenchmarkSchedulerFakeClient(b *testing.B) {
	b.ReportAllocs()
	var elapsed time.Duration
	var mallocs uint64
	var cpu time.Duration
	b.StopTimer()
	for range b.N {
		objs := []k8sruntime.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}}}
		for _, n := range benchCluster() {
			objs = append(objs, n)
		}
		for i := range benchPods {
			objs = append(objs, benchPod(i))
		}
		// The field-managed tracker costs ~1 MB and ~2,500 allocations
		// per binding, far more than the scheduler itself (compare
		// BenchmarkScheduleAlgorithm); the simple clientset's 100-event
		// watch buffer panics under 10,000 bindings.
		client := fake.NewClientset(objs...)
		var bound atomic.Int64
		bind := bindReactor(client)
		client.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, k8sruntime.Object, error) {
			handled, obj, err := bind(a)
			if handled && err == nil {
				bound.Add(1)
			}
			return handled, obj, err
		})
		factory := informers.NewSharedInformerFactory(client, 0)
		s, err := New(client, &events.FakeRecorder{}, factory, Options{})
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		factory.Start(ctx.Done())
		factory.WaitForCacheSync(ctx.Done())
		done := make(chan struct{})
		b.StartTimer()
		before, cpuBefore := memMallocs(), cpuTime()
		start := time.Now()
		go func() { s.Run(ctx); close(done) }()
		for bound.Load() < benchPods {
			time.Sleep(5 * time.Millisecond)
		}
		elapsed += time.Since(start)
		mallocs += memMallocs() - before
		cpu += cpuTime() - cpuBefore
		b.StopTimer()
		cancel()
		<-done
		factory.Shutdown()
	}
	b.ReportMetric(float64(b.N*benchPods)/elapsed.Seconds(), "pods/s")
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(float64(mallocs)/float64(b.N*benchPods), "allocs/pod")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N*benchPods), "cpu-µs/pod")
}

func memMallocs() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.Mallocs
}

// cpuTime is the process's user and system CPU time: on a shared,
// loaded machine it says more than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
