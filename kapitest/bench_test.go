package kapitest

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kapi-dev/kapi/internal/bench/stats"
)

// cpuTime is the CPU time the process used so far (user and system): on
// a shared machine it tells the cost of a start better than wall time.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// listNamespaces is the first request of a test: Start is over when it
// answered.
func listNamespaces(b testing.TB, s *Server) {
	cs, err := kubernetes.NewForConfig(s.Config())
	if err != nil {
		b.Fatal(err)
	}
	if _, err := cs.CoreV1().Namespaces().List(context.Background(), metav1.ListOptions{}); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkStart measures Start on memory to a client's first answer;
// cpu-ms is the CPU time of the process per start.
func BenchmarkStart(b *testing.B) {
	var cpu time.Duration
	var walls []time.Duration
	for b.Loop() {
		c0, t0 := cpuTime(b), time.Now()
		s := StartServer(b)
		listNamespaces(b, s)
		walls = append(walls, time.Since(t0))
		cpu += cpuTime(b) - c0
		b.StopTimer()
		s.Stop()
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(stats.Median(walls).Microseconds())/1000, "p50-ms")
}

// BenchmarkStop measures Stop of a memory server that answered a client.
func BenchmarkStop(b *testing.B) {
	var walls []time.Duration
	for b.Loop() {
		b.StopTimer()
		s := StartServer(b)
		listNamespaces(b, s)
		b.StartTimer()
		t0 := time.Now()
		s.Stop()
		walls = append(walls, time.Since(t0))
	}
	b.ReportMetric(float64(stats.Median(walls).Microseconds())/1000, "p50-ms")
}

// BenchmarkServerMemory reports, with one server running, the process's
// resident set (rss-MB, from /proc; Linux only), how much of it came with
// the server (rss-server-MB: measured against the process before it), and
// the heap live after a GC (heap-MB).
func BenchmarkServerMemory(b *testing.B) {
	runtime.GC()
	base, _ := residentMB()
	for b.Loop() {
		b.StopTimer()
		s := StartServer(b)
		listNamespaces(b, s)
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "heap-MB")
		if rss, ok := residentMB(); ok {
			b.ReportMetric(rss, "rss-MB")
			b.ReportMetric(rss-base, "rss-server-MB")
		}
		s.Stop()
		b.StartTimer()
	}
}

// residentMB reads VmRSS from /proc/self/status.
func residentMB() (float64, bool) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
			return kb / 1024, err == nil
		}
	}
	return 0, false
}

// BenchmarkIdleControllers reports what the in-process controllers cost
// an idle server: with none and with all of them, once the server is
// settled (its goroutine count steady), the live heap after a GC
// (heap-MB), the goroutines' stacks (stack-MB), the goroutines, and the
// CPU the process spends per idle second (idle-cpu-ms/s). The difference
// between "all" and "none" is the controllers' share.
func BenchmarkIdleControllers(b *testing.B) {
	for _, bc := range []struct {
		name string
		opts []Option
	}{{"none", []Option{WithControllers()}}, {"all", nil}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				s := StartServer(b, bc.opts...)
				listNamespaces(b, s)
				goroutines := settle()
				c0 := cpuTime(b)
				time.Sleep(time.Second)
				idleCPU := cpuTime(b) - c0
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "heap-MB")
				b.ReportMetric(float64(ms.StackInuse)/(1<<20), "stack-MB")
				b.ReportMetric(float64(goroutines), "goroutines")
				b.ReportMetric(float64(idleCPU.Microseconds())/1000, "idle-cpu-ms/s")
				s.Stop()
				b.StartTimer()
			}
		})
	}
}

// settle waits until the number of goroutines has not changed for half a
// second (the controllers' first syncs are over) and returns it.
func settle() int {
	last, steady := runtime.NumGoroutine(), 0
	for deadline := time.Now().Add(30 * time.Second); steady < 5 && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		n := runtime.NumGoroutine()
		if n == last {
			steady++
		} else {
			last, steady = n, 0
		}
	}
	return last
}
