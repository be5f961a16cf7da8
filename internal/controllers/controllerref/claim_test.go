package controllerref

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"
)

// TestClaim: a matching orphan is adopted with a controller reference, a
// controlled Pod that stopped matching is released, others' Pods, Pods
// being deleted and Pods the filter refuses are left alone.
func TestClaim(t *testing.T) {
	ctx := context.Background()
	owner := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", UID: "set"}}
	kind := appsv1.SchemeGroupVersion.WithKind("StatefulSet")
	mine := metav1.NewControllerRef(owner, kind)
	other := &metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "rs", Controller: ptr.To(true)}
	pod := func(name string, lbls map[string]string, ref *metav1.OwnerReference) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID(name), Labels: lbls}}
		if ref != nil {
			p.OwnerReferences = []metav1.OwnerReference{*ref}
		}
		return p
	}
	app := map[string]string{"app": "web"}
	pods := []*corev1.Pod{
		pod("web-0", app, mine), pod("web-1", app, nil), pod("web-2", nil, mine),
		pod("web-3", app, other), pod("stranger", app, nil),
	}
	client := fake.NewClientset(pods[0], pods[1], pods[2], pods[3], pods[4], owner)
	m := &Manager{
		Controller: owner, Kind: kind, Selector: labels.SelectorFromSet(app),
		Filter: func(o metav1.Object) bool { return o.GetName() != "stranger" },
		Fresh: func(ctx context.Context) (metav1.Object, error) {
			return client.AppsV1().StatefulSets("ns").Get(ctx, "web", metav1.GetOptions{})
		},
		Patch: func(ctx context.Context, name string, patch []byte) error {
			_, err := client.CoreV1().Pods("ns").Patch(ctx, name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
			return err
		},
	}
	got, err := Claim(ctx, m, pods)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range got {
		names = append(names, p.Name)
	}
	if len(names) != 2 || names[0] != "web-0" || names[1] != "web-1" {
		t.Fatalf("claimed %v", names)
	}
	adopted, _ := client.CoreV1().Pods("ns").Get(ctx, "web-1", metav1.GetOptions{})
	if ref := metav1.GetControllerOf(adopted); ref == nil || ref.UID != "set" || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
		t.Errorf("web-1 owners = %+v", adopted.OwnerReferences)
	}
	released, _ := client.CoreV1().Pods("ns").Get(ctx, "web-2", metav1.GetOptions{})
	if len(released.OwnerReferences) != 0 {
		t.Errorf("web-2 owners = %+v", released.OwnerReferences)
	}
	stranger, _ := client.CoreV1().Pods("ns").Get(ctx, "stranger", metav1.GetOptions{})
	if len(stranger.OwnerReferences) != 0 {
		t.Errorf("stranger adopted")
	}
}
