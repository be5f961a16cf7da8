package flowschemastatus

import (
	"context"
	"log/slog"
	"testing"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	testclock "k8s.io/utils/clock/testing"
)

func schema(name, level string, conds ...flowcontrolv1.FlowSchemaCondition) *flowcontrolv1.FlowSchema {
	fs := &flowcontrolv1.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: name}}
	fs.Spec.PriorityLevelConfiguration.Name = level
	fs.Spec.MatchingPrecedence = 1000
	fs.Status.Conditions = conds
	return fs
}

func level(name string) *flowcontrolv1.PriorityLevelConfiguration {
	return &flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

// start runs the controller over a fake clientset holding objs.
func start(t *testing.T, objs ...any) *fake.Clientset {
	t.Helper()
	client := fake.NewClientset()
	for _, o := range objs {
		var err error
		switch o := o.(type) {
		case *flowcontrolv1.FlowSchema:
			_, err = client.FlowcontrolV1().FlowSchemas().Create(context.Background(), o, metav1.CreateOptions{})
		case *flowcontrolv1.PriorityLevelConfiguration:
			_, err = client.FlowcontrolV1().PriorityLevelConfigurations().Create(context.Background(), o, metav1.CreateOptions{})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	f := informers.NewSharedInformerFactory(client, 0)
	clk := testclock.NewFakePassiveClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	c, err := New(f.Flowcontrol().V1().FlowSchemas(), f.Flowcontrol().V1().PriorityLevelConfigurations(),
		client.FlowcontrolV1().FlowSchemas(), clk, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.Start(ctx.Done())
	done := make(chan struct{})
	go func() { c.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done; f.Shutdown() })
	return client
}

// waitCondition waits until fs's Dangling condition has status.
func waitCondition(t *testing.T, client *fake.Clientset, name string, status flowcontrolv1.ConditionStatus) flowcontrolv1.FlowSchemaCondition {
	t.Helper()
	var got flowcontrolv1.FlowSchemaCondition
	err := wait.PollUntilContextTimeout(context.Background(), 5*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		fs, err := client.FlowcontrolV1().FlowSchemas().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		if c := current(fs); c != nil {
			got = *c
			return c.Status == status, nil
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("FlowSchema %s: Dangling %+v, want status %s", name, got, status)
	}
	return got
}

// TestDanglingFollowsPriorityLevel: NotFound while the level is missing,
// Found once it is created, NotFound again when it is deleted.
func TestDanglingFollowsPriorityLevel(t *testing.T) {
	client := start(t, schema("a", "missing"))
	got := waitCondition(t, client, "a", flowcontrolv1.ConditionTrue)
	want := flowcontrolv1.FlowSchemaCondition{
		Type: "Dangling", Status: "True", Reason: "NotFound",
		Message:            `This FlowSchema references the PriorityLevelConfiguration object named "missing" but there is no such object`,
		LastTransitionTime: metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)),
	}
	if !got.LastTransitionTime.Equal(&want.LastTransitionTime) || got.Type != want.Type || got.Reason != want.Reason || got.Message != want.Message {
		t.Errorf("condition = %+v, want %+v", got, want)
	}
	ctx := context.Background()
	if _, err := client.FlowcontrolV1().PriorityLevelConfigurations().Create(ctx, level("missing"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got = waitCondition(t, client, "a", flowcontrolv1.ConditionFalse)
	if got.Reason != "Found" || got.Message != `This FlowSchema references the PriorityLevelConfiguration object named "missing" and it exists` {
		t.Errorf("condition = %+v", got)
	}
	if err := client.FlowcontrolV1().PriorityLevelConfigurations().Delete(ctx, "missing", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitCondition(t, client, "a", flowcontrolv1.ConditionTrue)
}

// TestStatusWrittenByApply: the condition is written by a server-side
// apply of the status with upstream's field manager, and a schema whose
// condition is already right is not written.
func TestStatusWrittenByApply(t *testing.T) {
	ok := Desired("here", true)
	client := start(t, level("here"), schema("fresh", "here"), schema("current", "here", ok))
	waitCondition(t, client, "fresh", flowcontrolv1.ConditionFalse)
	var applies []string
	for _, a := range client.Actions() {
		p, isPatch := a.(clienttesting.PatchAction)
		if !isPatch {
			continue
		}
		if a.GetSubresource() != "status" || string(p.GetPatchType()) != "application/apply-patch+yaml" {
			t.Errorf("write %s %s of %s", p.GetPatchType(), a.GetSubresource(), p.GetName())
		}
		if pa, ok := a.(clienttesting.PatchActionImpl); ok && pa.PatchOptions.FieldManager != FieldManager {
			t.Errorf("field manager %q", pa.PatchOptions.FieldManager)
		}
		applies = append(applies, p.GetName())
	}
	if len(applies) != 1 || applies[0] != "fresh" {
		t.Errorf("applied to %v, want only fresh", applies)
	}
}
