package node

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func newStorage(t *testing.T) (*runtime.Scheme, *generic.Store, rest.Patcher) {
	t.Helper()
	scheme := registrytest.NewScheme(t)
	storage, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatalf("NewStorage: %v", err)
	}
	return scheme, storage["nodes"].(*generic.Store), storage["nodes/status"].(rest.Patcher)
}

func TestGolden(t *testing.T) {
	scheme, store, _ := newStorage(t)
	created := registrytest.Golden(t, scheme, store, "testdata", "node").(*corev1.Node)
	if got := created.Status.Allocatable.Cpu().String(); got != "4" {
		t.Errorf("allocatable cpu = %s, want capacity's 4", got)
	}
	if store.NamespaceScoped() || store.GetSingularName() != "node" || !cmp.Equal(store.ShortNames(), []string{"no"}) {
		t.Errorf("scope/singular/short names wrong: %v %q %v", store.NamespaceScoped(), store.GetSingularName(), store.ShortNames())
	}
}

func validNode(name string) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

func TestCreateInvalid(t *testing.T) {
	_, store, _ := newStorage(t)
	tests := []struct {
		name   string
		mutate func(*corev1.Node)
		causes []string
	}{
		{"name", func(n *corev1.Node) { n.Name = "Node_1" }, []string{"metadata.name"}},
		{"taint effect", func(n *corev1.Node) { n.Spec.Taints = []corev1.Taint{{Key: "k", Effect: "Sometimes"}} }, []string{"metadata.taints[0].effect"}},
		{"podCIDR", func(n *corev1.Node) { n.Spec.PodCIDR = "not-a-cidr" }, []string{"spec.podCIDRs[0]"}},
		{"capacity", func(n *corev1.Node) { n.Status.Capacity = corev1.ResourceList{"cpu": resource.MustParse("-2")} }, []string{"status.capacity.cpu", "status.allocatable.cpu"}},
	}
	for _, tt := range tests {
		n := validNode("n")
		tt.mutate(n)
		// Defaults apply on decode; the test applies them as a request would.
		registrytest.NewScheme(t).Default(n)
		_, err := store.Create(context.Background(), n, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
		assertInvalid(t, tt.name, err, tt.causes)
	}
}

func assertInvalid(t *testing.T, name string, err error, fields []string) {
	t.Helper()
	if !apierrors.IsInvalid(err) {
		t.Errorf("%s: err = %v, want Invalid", name, err)
		return
	}
	var got []string
	for _, c := range err.(apierrors.APIStatus).Status().Details.Causes {
		got = append(got, c.Field)
	}
	if diff := cmp.Diff(fields, got); diff != "" {
		t.Errorf("%s: causes (-want +got):\n%s", name, diff)
	}
}

func TestUpdates(t *testing.T) {
	_, store, status := newStorage(t)
	ctx := context.Background()
	n := validNode("n")
	n.Spec.PodCIDRs = []string{"10.0.0.0/24"}
	n.Spec.PodCIDR = "10.0.0.0/24"
	n.Status.Phase = corev1.NodeRunning
	obj, err := store.Create(ctx, n, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	created := obj.(*corev1.Node)
	if created.Status.Phase != corev1.NodeRunning || created.Generation != 0 {
		t.Errorf("created status=%v generation=%d: nodes keep status and have no generation", created.Status.Phase, created.Generation)
	}

	// The main resource keeps status.
	upd := created.DeepCopy()
	upd.Spec.Unschedulable = true
	upd.Status.Phase = corev1.NodeTerminated
	obj, _, err = store.Update(ctx, "n", rest.DefaultUpdatedObjectInfo(upd), nil, nil, false, &metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if got := obj.(*corev1.Node); !got.Spec.Unschedulable || got.Status.Phase != corev1.NodeRunning {
		t.Errorf("update: unschedulable=%v phase=%v", got.Spec.Unschedulable, got.Status.Phase)
	}

	// nodes/status keeps spec.
	st := obj.(*corev1.Node).DeepCopy()
	st.Spec.Unschedulable = false
	st.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	obj, _, err = status.Update(ctx, "n", rest.DefaultUpdatedObjectInfo(st), nil, nil, false, &metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("status update: %v", err)
	}
	if got := obj.(*corev1.Node); !got.Spec.Unschedulable || len(got.Status.Conditions) != 1 {
		t.Errorf("status update: unschedulable=%v conditions=%v", got.Spec.Unschedulable, got.Status.Conditions)
	}

	// podCIDRs cannot change once set.
	cidr := obj.(*corev1.Node).DeepCopy()
	cidr.Spec.PodCIDRs, cidr.Spec.PodCIDR = []string{"10.1.0.0/24"}, "10.1.0.0/24"
	_, _, err = store.Update(ctx, "n", rest.DefaultUpdatedObjectInfo(cidr), nil, nil, false, &metav1.UpdateOptions{})
	assertInvalid(t, "podCIDR change", err, []string{"spec.podCIDRs"})

	// spec.unschedulable is selectable.
	list, err := store.List(ctx, &metainternalversion.ListOptions{FieldSelector: fields.OneTermEqualSelector("spec.unschedulable", "true")})
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	if items := list.(*corev1.NodeList).Items; len(items) != 1 {
		t.Errorf("spec.unschedulable=true selected %d nodes", len(items))
	}
}

func TestProxy(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	storage, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	_, err = storage["nodes/proxy"].(rest.Getter).Get(context.Background(), "n", &metav1.GetOptions{})
	if !apierrors.IsServiceUnavailable(err) {
		t.Errorf("proxy: %v, want 503", err)
	}
}

func TestTable(t *testing.T) {
	now := time.Date(2026, 1, 1, 1, 0, 0, 0, time.UTC)
	created := metav1.NewTime(now.Add(-2 * time.Hour))
	tests := []struct {
		name string
		node corev1.Node
		want []any
	}{
		{"unknown", corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "a", CreationTimestamp: created}},
			[]any{"a", "Unknown", "<none>", "120m", "", "<none>", "<none>", "<unknown>", "<unknown>", "<unknown>"}},
		{"ready, cordoned, roles", corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: "b", CreationTimestamp: created, Labels: map[string]string{
				"node-role.kubernetes.io/worker": "", "node-role.kubernetes.io/control-plane": "", "kubernetes.io/role": "worker"}},
			Spec: corev1.NodeSpec{Unschedulable: true},
			Status: corev1.NodeStatus{
				Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
				Addresses:  []corev1.NodeAddress{{Type: corev1.NodeExternalIP, Address: "1.2.3.4"}, {Type: corev1.NodeInternalIP, Address: "10.0.0.1"}},
				NodeInfo:   corev1.NodeSystemInfo{KubeletVersion: "v1.37.0", OSImage: "Debian", KernelVersion: "6.1", ContainerRuntimeVersion: "containerd://2.0"},
			}},
			[]any{"b", "Ready,SchedulingDisabled", "control-plane,worker", "120m", "v1.37.0", "10.0.0.1", "1.2.3.4", "Debian", "6.1", "containerd://2.0"}},
		{"not ready", corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "c", CreationTimestamp: created},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionUnknown}}}},
			[]any{"c", "NotReady", "<none>", "120m", "", "<none>", "<none>", "<unknown>", "<unknown>", "<unknown>"}},
	}
	table := Table().WithClock(func() time.Time { return now })
	for _, tt := range tests {
		got, err := table.ConvertToTable(context.Background(), &tt.node, nil)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got.Rows[0].Cells); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
		if len(got.ColumnDefinitions) != 10 || got.ColumnDefinitions[5].Priority != 1 || got.ColumnDefinitions[4].Priority != 0 {
			t.Errorf("%s: columns %+v", tt.name, got.ColumnDefinitions)
		}
	}
}
