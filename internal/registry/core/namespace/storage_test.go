package namespace

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

type fixture struct {
	rest     *REST
	status   *StatusREST
	finalize *FinalizeREST
	ctx      context.Context
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	scheme := registrytest.NewScheme(t)
	r, s, f, err := NewREST(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatalf("NewREST: %v", err)
	}
	return &fixture{rest: r, status: s, finalize: f, ctx: registrytest.NamespaceContext("")}
}

func (f *fixture) create(t *testing.T, ns *corev1.Namespace) *corev1.Namespace {
	t.Helper()
	obj, err := f.rest.Create(f.ctx, ns, nil, nil)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	return obj.(*corev1.Namespace)
}

func (f *fixture) get(t *testing.T, name string) *corev1.Namespace {
	t.Helper()
	obj, err := f.rest.Get(f.ctx, name, &metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	return obj.(*corev1.Namespace)
}

func TestCreateDefaults(t *testing.T) {
	f := newFixture(t)
	ns := f.create(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "team-"}})
	if ns.Labels[corev1.LabelMetadataName] != ns.Name || ns.Name == "team-" {
		t.Errorf("name %q, labels %v", ns.Name, ns.Labels)
	}
	if ns.Status.Phase != corev1.NamespaceActive {
		t.Errorf("phase = %q", ns.Status.Phase)
	}
	if diff := cmp.Diff([]corev1.FinalizerName{"kubernetes"}, ns.Spec.Finalizers); diff != "" {
		t.Errorf("finalizers (-want +got):\n%s", diff)
	}
	if f.rest.NamespaceScoped() || f.rest.ShortNames()[0] != "ns" || f.rest.GetSingularName() != "namespace" {
		t.Error("wrong discovery description")
	}
}

func TestDeleteLifecycle(t *testing.T) {
	f := newFixture(t)
	f.create(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}})

	// The first delete marks the namespace.
	obj, deleted, err := f.rest.Delete(f.ctx, "team", nil, nil)
	if err != nil || deleted {
		t.Fatalf("first delete: deleted=%v err=%v", deleted, err)
	}
	marked := obj.(*corev1.Namespace)
	if marked.DeletionTimestamp == nil || marked.Status.Phase != corev1.NamespaceTerminating {
		t.Fatalf("marked = %+v", marked)
	}
	// Deleting again while the kubernetes finalizer is there changes
	// nothing.
	obj, deleted, err = f.rest.Delete(f.ctx, "team", nil, nil)
	if err != nil || deleted || obj.(*corev1.Namespace).ResourceVersion != marked.ResourceVersion {
		t.Fatalf("second delete: deleted=%v err=%v obj=%+v", deleted, err, obj)
	}
	// The namespace controller finalizes; with no metadata finalizers the
	// namespace is then gone.
	done := f.get(t, "team").DeepCopy()
	done.Spec.Finalizers = nil
	if _, _, err := f.finalize.Update(f.ctx, "team", rest.DefaultUpdatedObjectInfo(done), nil, nil, false, nil); err != nil {
		t.Fatalf("finalize: %v", err)
	}
	if _, err := f.rest.Get(f.ctx, "team", &metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("get after finalize: %v, want NotFound", err)
	}
}

func TestDeleteAfterFinalize(t *testing.T) {
	f := newFixture(t)
	f.create(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team", Finalizers: []string{"example.com/hold"}}})
	if _, _, err := f.rest.Delete(f.ctx, "team", nil, nil); err != nil {
		t.Fatalf("mark: %v", err)
	}
	done := f.get(t, "team").DeepCopy()
	done.Spec.Finalizers = nil
	if _, _, err := f.finalize.Update(f.ctx, "team", rest.DefaultUpdatedObjectInfo(done), nil, nil, false, nil); err != nil {
		t.Fatalf("finalize: %v", err)
	}
	// Finalized but held by a metadata finalizer: a delete leaves it.
	if _, deleted, err := f.rest.Delete(f.ctx, "team", nil, nil); err != nil || deleted {
		t.Fatalf("delete with metadata finalizer: deleted=%v err=%v", deleted, err)
	}
	released := f.get(t, "team").DeepCopy()
	released.Finalizers = nil
	if _, _, err := f.rest.Update(f.ctx, "team", rest.DefaultUpdatedObjectInfo(released), nil, nil, false, nil); err != nil {
		t.Fatalf("release: %v", err)
	}
	if _, err := f.rest.Get(f.ctx, "team", &metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("get after release: %v, want NotFound", err)
	}
}

func TestDeleteOptions(t *testing.T) {
	f := newFixture(t)
	ns := f.create(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}})

	wrongUID := types.UID("other")
	_, _, err := f.rest.Delete(f.ctx, "team", nil, &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &wrongUID}})
	if !apierrors.IsConflict(err) || err.Error() != `Operation cannot be fulfilled on namespaces "team": Precondition failed: UID in precondition: other, UID in object meta: `+string(ns.UID) {
		t.Fatalf("wrong uid: %v", err)
	}

	obj, _, err := f.rest.Delete(f.ctx, "team", nil, &metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil || obj.(*corev1.Namespace).Status.Phase != corev1.NamespaceTerminating {
		t.Fatalf("dry run: %v %v", obj, err)
	}
	if got := f.get(t, "team"); got.DeletionTimestamp != nil {
		t.Fatal("dry run marked the stored namespace")
	}

	orphan := metav1.DeletePropagationOrphan
	obj, _, err = f.rest.Delete(f.ctx, "team", nil, &metav1.DeleteOptions{PropagationPolicy: &orphan})
	if err != nil {
		t.Fatalf("delete: %v", err)
	}
	if diff := cmp.Diff([]string{metav1.FinalizerOrphanDependents}, obj.(*corev1.Namespace).Finalizers); diff != "" {
		t.Errorf("finalizers (-want +got):\n%s", diff)
	}

	forbidden := func(context.Context, runtime.Object) error {
		return apierrors.NewForbidden(corev1.Resource("namespaces"), "x", nil)
	}
	f.create(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "guarded"}})
	if _, _, err := f.rest.Delete(f.ctx, "guarded", forbidden, nil); !apierrors.IsForbidden(err) {
		t.Fatalf("delete validation: %v, want Forbidden", err)
	}
}

func TestMainUpdateKeepsFinalizersAndStatus(t *testing.T) {
	f := newFixture(t)
	ns := f.create(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}}).DeepCopy()
	ns.Spec.Finalizers = nil
	ns.Status.Phase = corev1.NamespaceTerminating
	ns.Labels["team"] = "a"
	obj, _, err := f.rest.Update(f.ctx, "team", rest.DefaultUpdatedObjectInfo(ns), nil, nil, false, nil)
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	got := obj.(*corev1.Namespace)
	if len(got.Spec.Finalizers) != 1 || got.Status.Phase != corev1.NamespaceActive || got.Labels["team"] != "a" {
		t.Errorf("updated = %+v", got)
	}
}

// TestStatusUpdateWhileTerminating: the namespace controller writes status
// conditions while content is still being removed; the namespace must
// survive until spec.finalizers is empty.
func TestStatusUpdateWhileTerminating(t *testing.T) {
	f := newFixture(t)
	f.create(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}})
	if _, _, err := f.rest.Delete(f.ctx, "team", nil, nil); err != nil {
		t.Fatalf("mark: %v", err)
	}
	ns := f.get(t, "team").DeepCopy()
	ns.Status.Conditions = []corev1.NamespaceCondition{{Type: corev1.NamespaceDeletionContentFailure, Status: corev1.ConditionFalse}}
	if _, _, err := f.status.Update(f.ctx, "team", rest.DefaultUpdatedObjectInfo(ns), nil, nil, false, nil); err != nil {
		t.Fatalf("status update: %v", err)
	}
	f.get(t, "team")
}
