package pod

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestTable(t *testing.T) {
	now := time.Date(2026, 1, 1, 1, 0, 0, 0, time.UTC)
	created := metav1.NewTime(now.Add(-time.Hour))
	restarted := metav1.NewTime(now.Add(-5 * time.Minute))
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, CreationTimestamp: created}
	}
	two := []corev1.Container{{Name: "a"}, {Name: "b"}}
	tests := []struct {
		pod  *corev1.Pod
		want []any
	}{
		{&corev1.Pod{ObjectMeta: meta("pending"), Spec: corev1.PodSpec{Containers: two}, Status: corev1.PodStatus{Phase: corev1.PodPending}},
			[]any{"pending", "0/2", "Pending", "0", "60m", "<none>", "<none>", "<none>", "<none>"}},
		{&corev1.Pod{ObjectMeta: meta("creating"), Spec: corev1.PodSpec{Containers: two[:1], NodeName: "n1"}, Status: corev1.PodStatus{
			Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{Name: "a", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}}}}},
			[]any{"creating", "0/1", "ContainerCreating", "0", "60m", "<none>", "n1", "<none>", "<none>"}},
		{&corev1.Pod{ObjectMeta: meta("running"), Spec: corev1.PodSpec{Containers: two, ReadinessGates: []corev1.PodReadinessGate{{ConditionType: "x"}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIPs: []corev1.PodIP{{IP: "10.0.0.5"}}, Conditions: []corev1.PodCondition{{Type: "x", Status: corev1.ConditionTrue}},
				ContainerStatuses: []corev1.ContainerStatus{
					{Name: "a", Ready: true, RestartCount: 2, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}},
						LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{FinishedAt: restarted}}},
					{Name: "b", Ready: false, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}},
				}}},
			[]any{"running", "1/2", "Running", "2 (5m ago)", "60m", "10.0.0.5", "<none>", "<none>", "1/1"}},
		{&corev1.Pod{ObjectMeta: meta("done"), Spec: corev1.PodSpec{Containers: two[:1]}, Status: corev1.PodStatus{Phase: corev1.PodSucceeded,
			ContainerStatuses: []corev1.ContainerStatus{{Name: "a", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Completed"}}}}}},
			[]any{"done", "0/1", "Completed", "0", "60m", "<none>", "<none>", "<none>", "<none>"}},
		{&corev1.Pod{ObjectMeta: meta("init"), Spec: corev1.PodSpec{Containers: two[:1], InitContainers: two}, Status: corev1.PodStatus{Phase: corev1.PodPending,
			InitContainerStatuses: []corev1.ContainerStatus{{Name: "a", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0}}}, {Name: "b"}}}},
			[]any{"init", "0/1", "Init:1/2", "0", "60m", "<none>", "<none>", "<none>", "<none>"}},
		{&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "going", CreationTimestamp: created, DeletionTimestamp: &restarted},
			Spec: corev1.PodSpec{Containers: two[:1]}, Status: corev1.PodStatus{Phase: corev1.PodRunning}},
			[]any{"going", "0/1", "Terminating", "0", "60m", "<none>", "<none>", "<none>", "<none>"}},
		{&corev1.Pod{ObjectMeta: meta("sidecar"), Spec: corev1.PodSpec{Containers: two[:1],
			InitContainers: []corev1.Container{{Name: "s", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways)}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning,
				InitContainerStatuses: []corev1.ContainerStatus{{Name: "s", Ready: true, Started: ptr.To(true)}},
				ContainerStatuses:     []corev1.ContainerStatus{{Name: "a", Ready: true, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}},
			[]any{"sidecar", "2/2", "Running", "0", "60m", "<none>", "<none>", "<none>", "<none>"}},
	}
	table := Table().WithClock(func() time.Time { return now })
	for _, tt := range tests {
		got, err := table.ConvertToTable(context.Background(), tt.pod, nil)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got.Rows[0].Cells); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.pod.Name, diff)
		}
	}
	got, _ := table.ConvertToTable(context.Background(), &corev1.PodList{}, nil)
	var names []string
	for _, c := range got.ColumnDefinitions {
		if c.Priority == 0 {
			names = append(names, c.Name)
		}
	}
	if diff := cmp.Diff([]string{"Name", "Ready", "Status", "Restarts", "Age"}, names); diff != "" {
		t.Errorf("default columns (-want +got):\n%s", diff)
	}
}
