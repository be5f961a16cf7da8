package controlplane

import (
	"context"
	"fmt"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// nodesRenewInterval is kubelet's lease renewal interval.
const nodesRenewInterval = 10 * time.Second

// countEvents counts the watch events of w until ctx ends.
func countEvents(ctx context.Context, w watch.Interface, n *atomic.Int64) {
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-w.ResultChan():
			if !ok {
				return
			}
			n.Add(1)
		}
	}
}

// BenchmarkSimulatedNodesSteadyState measures what simulated kubelets cost
// the whole server (simulator, API server, storage, watch fan-out to the
// shared informers) once registered: each iteration is one second of real
// time in which only lease renewals (every 10s per node) and the status
// checks run; cpu-ms/s is the CPU the process used per second,
// lease-writes/s and node-writes/s what was written. Run with
// -benchtime=10x or more so that every lease is renewed in the window.
func BenchmarkSimulatedNodesSteadyState(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			start := time.Now()
			s := startServer(b, "memory", func(c *Config) { c.SimulatedNodes = n })
			ready := time.Since(start)
			cs, err := kubernetes.NewForConfig(s.restCfg)
			if err != nil {
				b.Fatal(err)
			}
			// Let the first renewal round (spread over 10s) settle.
			time.Sleep(nodesRenewInterval)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var leases, nodeWrites atomic.Int64
			lw, err := cs.CoordinationV1().Leases(corev1.NamespaceNodeLease).Watch(ctx, metav1.ListOptions{})
			if err != nil {
				b.Fatal(err)
			}
			nw, err := cs.CoreV1().Nodes().Watch(ctx, metav1.ListOptions{})
			if err != nil {
				b.Fatal(err)
			}
			go countEvents(ctx, lw, &leases)
			go countEvents(ctx, nw, &nodeWrites)
			cpu0, wall0 := processCPU(), time.Now()
			for b.Loop() {
				time.Sleep(time.Second)
			}
			cpu, wall := processCPU()-cpu0, time.Since(wall0)
			// Each watch starts with one ADDED event per existing object.
			b.ReportMetric(float64(cpu.Milliseconds())/wall.Seconds(), "cpu-ms/s")
			b.ReportMetric(float64(leases.Load()-int64(n))/wall.Seconds(), "lease-writes/s")
			b.ReportMetric(float64(nodeWrites.Load()-int64(n))/wall.Seconds(), "node-writes/s")
			b.ReportMetric(ready.Seconds(), "s-to-ready")
		})
	}
}

// BenchmarkSimulatedDeploymentsAvailable is issue 21's load at a size CI
// can afford: KAPI_BENCH_SIM_NODES simulated nodes (default 50) and
// KAPI_BENCH_SIM_DEPLOYMENTS Deployments (default 30) of 10 replicas,
// created at once. It reports the seconds until every Deployment is
// Available (every Pod scheduled, Running and Ready), the CPU the process
// used until then, then the CPU per second over 10 s of steady
// state (kubelet heartbeats, leases and the controllers' resyncs) and the process's peak RSS. Run
// with -benchtime=1x; KAPI_BENCH_SIM_NODES=1000
// KAPI_BENCH_SIM_DEPLOYMENTS=1000 is the full load.
func BenchmarkSimulatedDeploymentsAvailable(b *testing.B) {
	nodes, deployments := envInt("KAPI_BENCH_SIM_NODES", 50), envInt("KAPI_BENCH_SIM_DEPLOYMENTS", 30)
	const replicas = 10
	for b.Loop() {
		b.StopTimer()
		s := startServer(b, "memory", func(c *Config) { c.SimulatedNodes = nodes })
		cfg := rest.CopyConfig(s.restCfg)
		cfg.ContentType = "application/vnd.kubernetes.protobuf"
		cfg.QPS, cfg.Burst = -1, -1
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		cpu0, start := processCPU(), time.Now()
		b.StartTimer()
		createDeployments(b, ctx, cs, deployments, replicas)
		waitCount(b, ctx, deployments, func() (int, error) {
			l, err := cs.AppsV1().Deployments("bench").List(ctx, metav1.ListOptions{ResourceVersion: "0"})
			if err != nil {
				return 0, err
			}
			n := 0
			for _, d := range l.Items {
				if d.Status.AvailableReplicas == replicas && d.Status.ObservedGeneration == d.Generation {
					n++
				}
			}
			return n, nil
		})
		b.StopTimer()
		b.ReportMetric(time.Since(start).Seconds(), "s-until-available")
		b.ReportMetric((processCPU() - cpu0).Seconds(), "cpu-s-until-available")
		cpu1, wall1 := processCPU(), time.Now()
		time.Sleep(10 * time.Second)
		b.ReportMetric(float64((processCPU()-cpu1).Milliseconds())/time.Since(wall1).Seconds(), "steady-cpu-ms/s")
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
			b.ReportMetric(float64(ru.Maxrss)/1024, "peak-rss-MiB")
		}
		b.StartTimer()
	}
}
