package controlplane

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// nsWait bounds how long a test waits for the namespace controller; it is
// a deadline for a hung controller, not a performance threshold.
const nsWait = 60 * time.Second

var widgets = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

// createWidgetCRD creates the namespaced CRD widgets.example.com and waits
// until its resource is served.
func createWidgetCRD(t *testing.T, dc dynamic.Interface) {
	t.Helper()
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": "widgets.example.com"},
		"spec": map[string]any{
			"group": "example.com",
			"scope": "Namespaced",
			"names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object", "x-kubernetes-preserve-unknown-fields": true,
				}},
			}},
		},
	}}
	crds := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	if _, err := dc.Resource(crds).Create(context.Background(), crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "widgets served", func(ctx context.Context) (bool, error) {
		_, err := dc.Resource(widgets).Namespace("default").List(ctx, metav1.ListOptions{})
		return err == nil, err
	})
}

func newWidget(name string, finalizers ...string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": name},
	}}
	u.SetFinalizers(finalizers)
	return u
}

// poll calls cond until it is true or nsWait passes.
func poll(t *testing.T, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, nsWait, true, func(ctx context.Context) (bool, error) {
		ok, err := cond(ctx)
		last = err
		return ok, nil
	})
	if err != nil {
		t.Fatalf("%s: never happened (last error: %v)", what, last)
	}
}

// TestNamespaceDeletionRemovesCustomResources deletes a namespace holding
// custom resources: they go with it, and a namespace recreated under the
// same name is empty.
func TestNamespaceDeletionRemovesCustomResources(t *testing.T) {
	s := startServer(t, "memory")
	cs := kubernetes.NewForConfigOrDie(s.restCfg)
	dc := dynamic.NewForConfigOrDie(s.restCfg)
	ctx := context.Background()
	createWidgetCRD(t, dc)

	const ns = "doomed"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"w1", "w2"} {
		if _, err := dc.Resource(widgets).Namespace(ns).Create(ctx, newWidget(name), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "namespace gone", func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		return apierrors.IsNotFound(err), err
	})
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	list, err := dc.Resource(widgets).Namespace(ns).List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 0 {
		t.Fatalf("widgets in the recreated namespace: %d (err %v), want none", len(list.Items), err)
	}
	// The root CA publisher puts kube-root-ca.crt into every new
	// namespace, as upstream's; the old namespace's ConfigMap must be gone.
	if _, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "cm", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("configmap cm in the recreated namespace: err %v, want not found", err)
	}
}

// TestNamespaceDeletionWaitsForFinalizers: a custom resource with a
// finalizer keeps its namespace Terminating, with upstream's conditions
// saying what remains; once the finalizer is removed the namespace goes.
func TestNamespaceDeletionWaitsForFinalizers(t *testing.T) {
	s := startServer(t, "memory")
	cs := kubernetes.NewForConfigOrDie(s.restCfg)
	dc := dynamic.NewForConfigOrDie(s.restCfg)
	ctx := context.Background()
	createWidgetCRD(t, dc)

	const ns = "held"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, w := range []*unstructured.Unstructured{newWidget("kept", "example.com/hold"), newWidget("free")} {
		if _, err := dc.Resource(widgets).Namespace(ns).Create(ctx, w, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	want := map[corev1.NamespaceConditionType]corev1.NamespaceCondition{
		corev1.NamespaceDeletionDiscoveryFailure: {Status: corev1.ConditionFalse, Reason: "ResourcesDiscovered", Message: "All resources successfully discovered"},
		corev1.NamespaceDeletionGVParsingFailure: {Status: corev1.ConditionFalse, Reason: "ParsedGroupVersions", Message: "All legacy kube types successfully parsed"},
		corev1.NamespaceDeletionContentFailure:   {Status: corev1.ConditionFalse, Reason: "ContentDeleted", Message: "All content successfully deleted, may be waiting on finalization"},
		corev1.NamespaceContentRemaining:         {Status: corev1.ConditionTrue, Reason: "SomeResourcesRemain", Message: "Some resources are remaining: widgets.example.com has 1 resource instances"},
		corev1.NamespaceFinalizersRemaining:      {Status: corev1.ConditionTrue, Reason: "SomeFinalizersRemain", Message: "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances"},
	}
	poll(t, "conditions of the terminating namespace", func(ctx context.Context) (bool, error) {
		got, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if got.Status.Phase != corev1.NamespaceTerminating {
			return false, fmt.Errorf("phase %q", got.Status.Phase)
		}
		return conditionsMatch(got.Status.Conditions, want)
	})
	kept, err := dc.Resource(widgets).Namespace(ns).Get(ctx, "kept", metav1.GetOptions{})
	if err != nil || kept.GetDeletionTimestamp() == nil {
		t.Fatalf("the held widget: %v (deletionTimestamp %v), want it marked", err, kept.GetDeletionTimestamp())
	}
	if _, err := dc.Resource(widgets).Namespace(ns).Get(ctx, "free", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the widget without finalizers: %v, want it gone", err)
	}

	// Releasing the finalizer lets the namespace go.
	if _, err := dc.Resource(widgets).Namespace(ns).Patch(ctx, "kept", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "namespace gone", func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		return apierrors.IsNotFound(err), err
	})
}

// conditionsMatch compares type, status, reason and message.
func conditionsMatch(got []corev1.NamespaceCondition, want map[corev1.NamespaceConditionType]corev1.NamespaceCondition) (bool, error) {
	seen := 0
	for _, c := range got {
		w, ok := want[c.Type]
		if !ok {
			continue
		}
		if c.Status != w.Status || c.Reason != w.Reason || c.Message != w.Message {
			return false, fmt.Errorf("condition %s = %s/%s/%q, want %s/%s/%q", c.Type, c.Status, c.Reason, c.Message, w.Status, w.Reason, w.Message)
		}
		seen++
	}
	if seen != len(want) {
		return false, fmt.Errorf("conditions %v, want %d of them", got, len(want))
	}
	return true, nil
}
