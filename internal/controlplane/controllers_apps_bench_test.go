package controlplane

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
)

// benchDeployments is a third of the load (1,000 Deployments of
// 3 replicas), so that CI's single run stays short;
// KAPI_BENCH_DEPLOYMENTS=1000 runs the full load.
var benchDeployments = envInt("KAPI_BENCH_DEPLOYMENTS", 300)

// envInt reads a positive count from the environment, or def.
func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// BenchmarkDeploymentsCreatedAtOnce creates benchDeployments Deployments
// of 3 replicas at once (20 clients) and waits until every ReplicaSet
// and Pod exists. It reports the seconds that took, the CPU seconds the
// process (server, controllers and the test's clients) used, and its
// peak RSS. Run with -benchtime=1x.
func BenchmarkDeploymentsCreatedAtOnce(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		s := startServer(b, "memory")
		cfg := rest.CopyConfig(s.restCfg)
		cfg.ContentType = "application/vnd.kubernetes.protobuf"
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		cpu0 := processCPU()
		start := time.Now()
		b.StartTimer()
		createDeployments(b, ctx, cs, benchDeployments, 3)
		waitCount(b, ctx, benchDeployments, func() (int, error) {
			l, err := cs.AppsV1().ReplicaSets("bench").List(ctx, metav1.ListOptions{ResourceVersion: "0"})
			if err != nil {
				return 0, err
			}
			return len(l.Items), nil
		})
		waitCount(b, ctx, 3*benchDeployments, func() (int, error) {
			l, err := cs.CoreV1().Pods("bench").List(ctx, metav1.ListOptions{ResourceVersion: "0"})
			if err != nil {
				return 0, err
			}
			return len(l.Items), nil
		})
		b.StopTimer()
		b.ReportMetric(time.Since(start).Seconds(), "s-until-all-pods")
		b.ReportMetric((processCPU() - cpu0).Seconds(), "cpu-s")
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
			b.ReportMetric(float64(ru.Maxrss)/1024, "peak-rss-MiB")
		}
		b.StartTimer()
	}
}

// createDeployments creates n Deployments of replicas Pods in namespace
// bench from 20 clients.
func createDeployments(b *testing.B, ctx context.Context, cs kubernetes.Interface, n int, replicas int32) {
	var wg sync.WaitGroup
	var once sync.Once
	var firstErr error
	work := make(chan int)
	for range 20 {
		wg.Go(func() {
			for i := range work {
				lbl := map[string]string{"app": fmt.Sprintf("d%d", i)}
				_, err := cs.AppsV1().Deployments("bench").Create(ctx, &appsv1.Deployment{
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("d%d", i)},
					Spec: appsv1.DeploymentSpec{
						Replicas: ptr.To(replicas), Selector: &metav1.LabelSelector{MatchLabels: lbl},
						Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: lbl},
							Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}},
					},
				}, metav1.CreateOptions{})
				if err != nil {
					once.Do(func() { firstErr = err })
				}
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	if firstErr != nil {
		b.Fatal(firstErr)
	}
}

// waitCount polls until count reaches want (10 minutes at most).
func waitCount(b *testing.B, ctx context.Context, want int, count func() (int, error)) {
	var n int
	var last error
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 10*time.Minute, true, func(context.Context) (bool, error) {
		n, last = count()
		return last == nil && n >= want, nil
	})
	if err != nil {
		b.Fatalf("%d of %d after 10 minutes (last error %v)", n, want, last)
	}
}
