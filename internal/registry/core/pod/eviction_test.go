package pod

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// pdbStrategy stores budgets as they are written: enough to exercise the
// REST adapter without the policy registry.
type pdbStrategy struct{ rest.DefaultStrategy }

func (pdbStrategy) Validate(context.Context, runtime.Object) field.ErrorList { return nil }
func (pdbStrategy) ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList {
	return nil
}

// newBudgets returns budgets over a real generic store, and that store.
func newBudgets(t *testing.T, scheme *runtime.Scheme) (DisruptionBudgets, *generic.Store) {
	t.Helper()
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:     func() runtime.Object { return &policyv1.PodDisruptionBudget{} },
		NewListFunc: func() runtime.Object { return &policyv1.PodDisruptionBudgetList{} },
		Resource:    policyv1.Resource("poddisruptionbudgets"),
		Singular:    policyv1.Resource("poddisruptionbudget"),
		Strategy:    pdbStrategy{rest.DefaultStrategy{ObjectTyper: scheme}},
	}, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	return NewDisruptionBudgets(store, store), store
}

func createBudget(t *testing.T, store *generic.Store, name string, allowed int32, match map[string]string) {
	t.Helper()
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: match}},
		Status:     policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: allowed, DesiredHealthy: 2, CurrentHealthy: 2},
	}
	if _, err := store.Create(ctx, pdb, rest.ValidateAllObjectFunc, &metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// runningPod creates a ready, running pod with labels app=web.
func runningPod(t *testing.T, scheme *runtime.Scheme, s map[string]rest.Storage, name string) {
	t.Helper()
	pod := newPod(t, scheme, s, name, map[string]string{"app": "web"})
	pod.Status.Phase = corev1.PodRunning
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	if _, err := update(t, s["pods/status"], pod); err != nil {
		t.Fatal(err)
	}
}

func evict(s map[string]rest.Storage, name string, dryRun ...string) error {
	e := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}}
	_, err := s["pods/eviction"].(rest.NamedCreater).Create(ctx, name, e, rest.ValidateAllObjectFunc, &metav1.CreateOptions{DryRun: dryRun})
	return err
}

func exists(s map[string]rest.Storage, name string) bool {
	_, err := podStore(s).Get(ctx, name, &metav1.GetOptions{})
	return err == nil
}

func TestEviction(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	budgets, pdbs := newBudgets(t, scheme)
	s, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme), Options{DisruptionBudgets: budgets})
	if err != nil {
		t.Fatal(err)
	}
	createBudget(t, pdbs, "web", 1, map[string]string{"app": "web"})
	runningPod(t, scheme, s, "a")
	runningPod(t, scheme, s, "b")
	newPod(t, scheme, s, "pending", map[string]string{"app": "web"})

	// A dry run changes nothing.
	if err := evict(s, "a", metav1.DryRunAll); err != nil || !exists(s, "a") {
		t.Fatalf("dry-run eviction: %v, pod exists=%v", err, exists(s, "a"))
	}
	// The budget allows one disruption: a goes, and is recorded.
	if err := evict(s, "a"); err != nil || exists(s, "a") {
		t.Fatalf("first eviction: %v, pod exists=%v", err, exists(s, "a"))
	}
	obj, _ := pdbs.Get(ctx, "web", &metav1.GetOptions{})
	status := obj.(*policyv1.PodDisruptionBudget).Status
	if _, ok := status.DisruptedPods["a"]; status.DisruptionsAllowed != 0 || !ok || len(status.Conditions) != 1 {
		t.Errorf("budget status after eviction = %+v", status)
	}
	// None left: 429 with a DisruptionBudget cause, and b stays.
	err = evict(s, "b")
	if !apierrors.IsTooManyRequests(err) || err.Error() != "Cannot evict pod as it would violate the pod's disruption budget." {
		t.Fatalf("second eviction: %v, want 429", err)
	}
	causes := err.(apierrors.APIStatus).Status().Details.Causes
	if len(causes) != 1 || causes[0].Type != policyv1.DisruptionBudgetCause || causes[0].Message != "The disruption budget web needs 2 healthy pods and has 2 currently" {
		t.Errorf("causes = %+v", causes)
	}
	if !exists(s, "b") {
		t.Error("b was deleted despite the budget")
	}
	// A pending pod disrupts nothing: it goes whatever the budget says.
	if err := evict(s, "pending"); err != nil || exists(s, "pending") {
		t.Errorf("pending pod eviction: %v, exists=%v", err, exists(s, "pending"))
	}
	// Two budgets matching one pod are not supported.
	createBudget(t, pdbs, "all", 5, nil)
	if err := evict(s, "b"); apierrors.ReasonForError(err) != "" || err == nil || err.(apierrors.APIStatus).Status().Code != 500 {
		t.Errorf("two budgets: %v, want 500", err)
	}
	if err := evict(s, "missing"); !apierrors.IsNotFound(err) {
		t.Errorf("missing pod: %v, want 404", err)
	}
	e := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "other", Namespace: "default"}}
	if _, err := s["pods/eviction"].(rest.NamedCreater).Create(ctx, "b", e, nil, &metav1.CreateOptions{}); !apierrors.IsBadRequest(err) {
		t.Errorf("name mismatch: %v, want 400", err)
	}
}

func TestEvictionWithoutBudgets(t *testing.T) {
	scheme, s := newStorage(t, Options{})
	runningPod(t, scheme, s, "a")
	if err := evict(s, "a"); err != nil || exists(s, "a") {
		t.Errorf("eviction without budgets: %v, exists=%v", err, exists(s, "a"))
	}
}
