package controlplane

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	kapischedulingv1 "github.com/kapi-dev/kapi/internal/apis/scheduling/v1"
)

// The seeded system priority classes carry what a create through the
// loopback client (upstream's hook) records: defaults and the Update
// entry of its manager. A system class cannot be created twice, so the
// comparison is with a user class of the same fields.
func TestSeededPriorityClassesLookCreatedThroughTheAPI(t *testing.T) {
	s := startServer(t, "memory")
	cs, err := kubernetes.NewForConfig(s.restCfg) // the default user agent, as the loopback client
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	classes := cs.SchedulingV1().PriorityClasses()
	for _, want := range kapischedulingv1.SystemPriorityClasses() {
		seeded, err := classes.Get(ctx, want.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if seeded.Value != want.Value || seeded.PreemptionPolicy == nil {
			t.Errorf("%s: value %d, preemption policy %v; want %d and the default", want.Name, seeded.Value, seeded.PreemptionPolicy, want.Value)
		}
		ref := want.DeepCopy()
		ref.Name, ref.Value = "copy-of-"+want.Name, 1000
		created, err := classes.Create(ctx, ref, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(updateEntry(t, ref.Name, &created.ObjectMeta), updateEntry(t, want.Name, &seeded.ObjectMeta)); d != "" {
			t.Errorf("%s managed fields (-api +seeded):\n%s", want.Name, d)
		}
	}
}
