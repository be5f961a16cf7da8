package history

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
)

func parent() *appsv1.StatefulSet {
	return &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", UID: "u1"}}
}

func data(image string) []byte {
	b, err := TemplatePatch(corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: image}}}})
	if err != nil {
		panic(err)
	}
	return b
}

// TestNewNamesAndLabels: a revision is <parent>-<hash>, labelled with the
// template labels and controller.kubernetes.io/hash, controlled by the
// parent; the collision count changes the hash.
func TestNewNamesAndLabels(t *testing.T) {
	var zero, one int32 = 0, 1
	a := New(parent(), appsv1.SchemeGroupVersion.WithKind("StatefulSet"), map[string]string{"app": "web"}, data("a"), 1, &zero)
	b := New(parent(), appsv1.SchemeGroupVersion.WithKind("StatefulSet"), map[string]string{"app": "web"}, data("a"), 1, &one)
	if a.Name != "web-"+a.Labels[HashLabel] || a.Labels["app"] != "web" || a.Revision != 1 {
		t.Errorf("revision = %s labels %v", a.Name, a.Labels)
	}
	if ref := metav1.GetControllerOf(a); ref == nil || ref.UID != "u1" || ref.Kind != "StatefulSet" {
		t.Errorf("owner = %+v", a.OwnerReferences)
	}
	if a.Name == b.Name {
		t.Error("the collision count does not change the name")
	}
	if string(data("a")) != `{"spec":{"template":{"$patch":"replace","metadata":{},"spec":{"containers":[{"image":"a","name":"c","resources":{}}]}}}}` {
		t.Errorf("patch = %s", data("a"))
	}
}

// TestCreateBumpsCollisionCount: a name already held by a revision with
// other data bumps the count and creates under a new name; one with the
// same data is returned as is.
func TestCreateBumpsCollisionCount(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset()
	f := informers.NewSharedInformerFactory(client, 0)
	h := &History{Client: client, Lister: f.Apps().V1().ControllerRevisions().Lister()}
	var count int32
	kind := appsv1.SchemeGroupVersion.WithKind("StatefulSet")
	want := New(parent(), kind, nil, data("a"), 1, &count)
	squatter := want.DeepCopy()
	squatter.Data.Raw = data("other")
	if _, err := client.AppsV1().ControllerRevisions("ns").Create(ctx, squatter, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := h.Create(ctx, parent(), want, &count)
	if err != nil {
		t.Fatal(err)
	}
	if count != 1 || got.Name == squatter.Name {
		t.Fatalf("count = %d, name %s", count, got.Name)
	}
	again, err := h.Create(ctx, parent(), want, &count)
	if err != nil || again.Name != got.Name || count != 1 {
		t.Fatalf("second create: %v %s count %d", err, again.Name, count)
	}
}

// TestTruncateKeepsLive: the oldest revisions not live go until limit
// are left.
func TestTruncateKeepsLive(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset()
	h := &History{Client: client}
	var revs []*appsv1.ControllerRevision
	for i, name := range []string{"r1", "r2", "r3", "r4"} {
		r := &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}, Revision: int64(i + 1)}
		if _, err := client.AppsV1().ControllerRevisions("ns").Create(ctx, r, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		revs = append(revs, r)
	}
	if err := h.Truncate(ctx, revs, map[string]bool{"r1": true, "r4": true}, 1); err != nil {
		t.Fatal(err)
	}
	l, _ := client.AppsV1().ControllerRevisions("ns").List(ctx, metav1.ListOptions{})
	var names []string
	for _, r := range l.Items {
		names = append(names, r.Name)
	}
	if len(names) != 3 || names[0] != "r1" || names[1] != "r3" || names[2] != "r4" {
		t.Fatalf("left = %v", names)
	}
}
