package namespace

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	kubefake "k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"
	clienttesting "k8s.io/client-go/testing"
)

var gadgets = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gadgets"}

func gadget(name string, finalizers ...string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: "example.com/v1", Kind: "Gadget"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "doomed", Name: name, Finalizers: finalizers},
	}
}

// TestControllerEmptiesWhatDiscoveryLists runs the controller over fake
// clients: the resources discovery names (here a custom one, served
// without deletecollection) are emptied item by item, a finalizer holds
// the namespace with upstream's conditions, and once it is gone the
// "kubernetes" finalizer is removed.
func TestControllerEmptiesWhatDiscoveryLists(t *testing.T) {
	now := metav1.Now()
	ns := &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{Name: "doomed", UID: "u1", DeletionTimestamp: &now},
		Spec:       corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{corev1.FinalizerKubernetes}},
		Status:     corev1.NamespaceStatus{Phase: corev1.NamespaceActive},
	}
	client := kubefake.NewClientset(ns)
	scheme := metadatafake.NewTestScheme()
	if err := metav1.AddMetaToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	md := metadatafake.NewSimpleMetadataClient(scheme, gadget("free"), gadget("held", "example.com/hold"))
	// The fake ignores finalizers; a server would keep "held", marked.
	md.PrependReactor("delete", "gadgets", func(action clienttesting.Action) (bool, runtime.Object, error) {
		return action.(clienttesting.DeleteAction).GetName() == "held", nil, nil
	})
	discover := func(context.Context) ([]*metav1.APIResourceList, error) {
		return []*metav1.APIResourceList{{
			GroupVersion: "example.com/v1",
			APIResources: []metav1.APIResource{
				{Name: "gadgets", Namespaced: true, Verbs: []string{"delete", "get", "list"}},
				{Name: "gadgets/status", Namespaced: true, Verbs: []string{"get", "patch"}},
			},
		}}, nil
	}
	factory := informers.NewSharedInformerFactory(client, 0)
	c := New(Config{Client: client, Namespaces: factory.Core().V1().Namespaces(), Metadata: md, Discover: discover, MinRetry: time.Millisecond, MaxRetry: 10 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	factory.StartWithContext(ctx)
	t.Cleanup(factory.Shutdown)
	done := make(chan struct{})
	go func() { c.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	getNS := func(ctx context.Context) *corev1.Namespace {
		got, err := client.CoreV1().Namespaces().Get(ctx, "doomed", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	waitFor(t, ctx, "conditions naming the held gadget", func(ctx context.Context) bool {
		got := getNS(ctx)
		i := slices.IndexFunc(got.Status.Conditions, func(c corev1.NamespaceCondition) bool {
			return c.Type == corev1.NamespaceFinalizersRemaining
		})
		return got.Status.Phase == corev1.NamespaceTerminating && i >= 0 &&
			got.Status.Conditions[i].Message == "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances"
	})
	if got := getNS(ctx); len(got.Spec.Finalizers) != 1 {
		t.Fatalf("finalized while content remains: %v", got.Spec.Finalizers)
	}
	// Removing the object stands for its finalizer finishing.
	if err := md.Tracker().Delete(gadgets, "doomed", "held"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the kubernetes finalizer removed", func(ctx context.Context) bool {
		return len(getNS(ctx).Spec.Finalizers) == 0
	})
	if list, err := md.Resource(gadgets).Namespace("doomed").List(ctx, metav1.ListOptions{}); err != nil || len(list.Items) != 0 {
		t.Fatalf("gadgets left: %v (err %v)", list, err)
	}
}

func waitFor(t *testing.T, ctx context.Context, what string, cond func(context.Context) bool) {
	t.Helper()
	err := wait.PollUntilContextCancel(ctx, 5*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		return cond(ctx), nil
	})
	if err != nil {
		t.Fatalf("%s: never happened", what)
	}
}
