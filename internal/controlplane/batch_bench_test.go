package controlplane

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/clock"
)

// BenchmarkJob100Pods measures, through the whole server, the time from
// creating a Job with parallelism and completions 100 until its status
// reports 100 active Pods (slow-start batches 1, 2, 4, ... 64).
func BenchmarkJob100Pods(b *testing.B) {
	cs := startBatchServerTB(b, clock.RealClock{})
	ctx := context.Background()
	i := 0
	for b.Loop() {
		i++
		name := fmt.Sprintf("bench-%d", i)
		if _, err := cs.BatchV1().Jobs("batch").Create(ctx, batchJob(name, 100, 100), metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
			j, err := cs.BatchV1().Jobs("batch").Get(ctx, name, metav1.GetOptions{})
			return err == nil && j.Status.Active == 100, nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
