package controlplane

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// BenchmarkGarbageCollect1000ConfigMaps creates 1,000 ConfigMaps owned by
// one ConfigMap (one client, one at a time), deletes the owner in the
// background and waits until the garbage collector has deleted every
// dependent. create-ms and gc-ms are the two durations per iteration.
func BenchmarkGarbageCollect1000ConfigMaps(b *testing.B) {
	const n = 1000
	s := startServer(b, "memory")
	cs := kubernetes.New(s.restClient("application/vnd.kubernetes.protobuf"))
	cms := cs.CoreV1().ConfigMaps("bench")
	ctx := context.Background()
	var create, collect time.Duration
	iter := 0
	for b.Loop() {
		iter++
		label := fmt.Sprintf("gc-%d", iter)
		owner, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner-" + label}}, metav1.CreateOptions{})
		if err != nil {
			b.Fatal(err)
		}
		ref := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID}
		start := time.Now()
		for i := range n {
			if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
				Name: fmt.Sprintf("%s-dep-%d", label, i), Labels: map[string]string{"gc": label},
				OwnerReferences: []metav1.OwnerReference{ref},
			}}, metav1.CreateOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		create += time.Since(start)
		list, err := cms.List(ctx, metav1.ListOptions{LabelSelector: "gc=" + label})
		if err != nil || len(list.Items) != n {
			b.Fatalf("list: %v (%d items)", err, len(list.Items))
		}
		w, err := cms.Watch(ctx, metav1.ListOptions{LabelSelector: "gc=" + label, ResourceVersion: list.ResourceVersion})
		if err != nil {
			b.Fatal(err)
		}
		start = time.Now()
		if err := cms.Delete(ctx, owner.Name, metav1.DeleteOptions{}); err != nil {
			b.Fatal(err)
		}
		for deleted := 0; deleted < n; {
			e, ok := <-w.ResultChan()
			if !ok {
				b.Fatalf("watch closed after %d deletions", deleted)
			}
			if e.Type == watch.Deleted {
				deleted++
			}
		}
		collect += time.Since(start)
		w.Stop()
	}
	b.ReportMetric(float64(create.Milliseconds())/float64(iter), "create-ms/op")
	b.ReportMetric(float64(collect.Milliseconds())/float64(iter), "gc-ms/op")
}
