package pod

import (
	"context"
	"fmt"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

const (
	// maxDisruptedPods bounds status.disruptedPods: past it, evictions
	// wait for the disruption controller to catch up.
	maxDisruptedPods = 2000
	// evictionAttempts bounds the retries on write conflicts.
	evictionAttempts = 20
	violationMsg     = "Cannot evict pod as it would violate the pod's disruption budget."
)

// EvictionREST serves POST pods/{name}/eviction: a delete that honours
// the PodDisruptionBudgets covering the pod.
type EvictionREST struct {
	store       *generic.Store
	statusStore *generic.Store
	budgets     DisruptionBudgets
}

var _ rest.NamedCreater = (*EvictionREST)(nil)

// New returns an empty policy/v1 Eviction.
func (r *EvictionREST) New() runtime.Object { return &policyv1.Eviction{} }

// Destroy does nothing: the pods storage owns the store.
func (r *EvictionREST) Destroy() {}

// Create evicts pod name. A pod that is not running yet (Pending), has
// finished or is already being deleted is deleted at once, as upstream:
// it takes nothing away from the budget. Otherwise the one budget
// matching the pod must allow a disruption (429 when it does not), which
// the eviction consumes, and the pod is deleted with the Eviction's
// delete options.
func (r *EvictionREST) Create(ctx context.Context, name string, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	eviction, ok := obj.(*policyv1.Eviction)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a Eviction object: %T", obj))
	}
	if name != eviction.Name {
		return nil, apierrors.NewBadRequest("name in URL does not match name in Eviction object")
	}
	deleteOptions, err := propagateDryRun(eviction, options)
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	if createValidation != nil {
		if err := createValidation(ctx, eviction.DeepCopyObject()); err != nil {
			return nil, err
		}
	}
	pod, deleted, err := r.evictWithoutBudget(ctx, name, deleteOptions)
	if err != nil || deleted {
		return successOr(err)
	}
	budget, err := r.matchingBudget(ctx, pod)
	if err != nil || budget == nil {
		if err == nil {
			err = r.deletePod(ctx, name, deleteOptions)
		}
		return successOr(err)
	}
	if !podReady(pod) && unhealthyMayGo(budget) {
		// The unready pod counts for nothing in the budget: remove it, as
		// long as it did not become ready meanwhile.
		err := r.deletePod(ctx, name, withResourceVersion(deleteOptions, pod.ResourceVersion))
		if apierrors.IsConflict(err) && resourceVersionUnset(deleteOptions) {
			err = stillProcessing(budget.Name)
		}
		return successOr(err)
	}
	if err := r.consumeDisruption(ctx, pod, budget, isDryRun(deleteOptions.DryRun)); err != nil {
		return nil, err
	}
	return successOr(r.deletePod(ctx, name, deleteOptions))
}

func successOr(err error) (runtime.Object, error) {
	if err != nil {
		return nil, err
	}
	return &metav1.Status{Status: metav1.StatusSuccess}, nil
}

// evictWithoutBudget deletes the pod when no budget applies to its state,
// retrying on conflicts unless the client pinned a resourceVersion. It
// returns the pod it read otherwise.
func (r *EvictionREST) evictWithoutBudget(ctx context.Context, name string, deleteOptions *metav1.DeleteOptions) (*corev1.Pod, bool, error) {
	for attempt := 1; ; attempt++ {
		obj, err := r.store.Get(ctx, name, &metav1.GetOptions{})
		if err != nil {
			return nil, false, err
		}
		pod := obj.(*corev1.Pod)
		if !canIgnoreBudget(pod) {
			return pod, false, nil
		}
		opts := deleteOptions
		terminal := pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed || pod.DeletionTimestamp != nil
		if !terminal && resourceVersionUnset(deleteOptions) {
			// A Pending pod may start meanwhile; delete this version only.
			opts = withResourceVersion(deleteOptions, pod.ResourceVersion)
		}
		err = r.deletePod(ctx, name, opts)
		if err == nil || !apierrors.IsConflict(err) || !resourceVersionUnset(deleteOptions) || attempt == evictionAttempts {
			return pod, err == nil, err
		}
	}
}

// canIgnoreBudget: pods not running, finished, or already going.
func canIgnoreBudget(pod *corev1.Pod) bool {
	switch pod.Status.Phase {
	case corev1.PodSucceeded, corev1.PodFailed, corev1.PodPending:
		return true
	}
	return pod.DeletionTimestamp != nil
}

// matchingBudget returns the budget whose selector matches the pod, nil
// when none does, and a 500 when several do, as upstream.
func (r *EvictionREST) matchingBudget(ctx context.Context, pod *corev1.Pod) (*policyv1.PodDisruptionBudget, error) {
	if r.budgets == nil {
		return nil, nil
	}
	all, err := r.budgets.List(ctx, pod.Namespace)
	if err != nil {
		return nil, err
	}
	var matching []policyv1.PodDisruptionBudget
	for _, b := range all {
		selector, err := metav1.LabelSelectorAsSelector(b.Spec.Selector)
		if err != nil || b.Namespace != pod.Namespace || !selector.Matches(labels.Set(pod.Labels)) {
			continue
		}
		matching = append(matching, b)
	}
	switch len(matching) {
	case 0:
		return nil, nil
	case 1:
		return &matching[0], nil
	}
	return nil, &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    500,
		Message: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
	}}
}

// unhealthyMayGo: an unready pod may be evicted when the budget says so,
// or when the application is healthy without it.
func unhealthyMayGo(b *policyv1.PodDisruptionBudget) bool {
	if p := b.Spec.UnhealthyPodEvictionPolicy; p != nil && *p == policyv1.AlwaysAllow {
		return true
	}
	return b.Status.CurrentHealthy >= b.Status.DesiredHealthy && b.Status.DesiredHealthy > 0
}

// consumeDisruption takes one disruption from the budget and records the
// pod in status.disruptedPods, re-reading the budget on conflicts.
func (r *EvictionREST) consumeDisruption(ctx context.Context, pod *corev1.Pod, budget *policyv1.PodDisruptionBudget, dryRun bool) error {
	for attempt := 1; ; attempt++ {
		err := r.checkAndDecrement(ctx, pod.Name, *budget.DeepCopy(), dryRun)
		if err == nil || !apierrors.IsConflict(err) {
			return err
		}
		if attempt == evictionAttempts {
			return apierrors.NewTimeoutError(fmt.Sprintf("couldn't update PodDisruptionBudget %q due to conflicts", budget.Name), 10)
		}
		if budget, err = r.refresh(ctx, budget); err != nil {
			return err
		}
	}
}

func (r *EvictionREST) refresh(ctx context.Context, budget *policyv1.PodDisruptionBudget) (*policyv1.PodDisruptionBudget, error) {
	all, err := r.budgets.List(ctx, budget.Namespace)
	if err != nil {
		return nil, err
	}
	for i := range all {
		if all[i].Name == budget.Name {
			return &all[i], nil
		}
	}
	return nil, apierrors.NewNotFound(policyv1.Resource("poddisruptionbudgets"), budget.Name)
}

func (r *EvictionREST) checkAndDecrement(ctx context.Context, podName string, b policyv1.PodDisruptionBudget, dryRun bool) error {
	if b.Status.ObservedGeneration < b.Generation {
		return stillProcessing(b.Name)
	}
	if b.Status.DisruptionsAllowed < 0 {
		return apierrors.NewForbidden(policyv1.Resource("poddisruptionbudget"), b.Name, fmt.Errorf("pdb disruptions allowed is negative"))
	}
	if len(b.Status.DisruptedPods) > maxDisruptedPods {
		return apierrors.NewForbidden(policyv1.Resource("poddisruptionbudget"), b.Name, fmt.Errorf("DisruptedPods map too big - too many evictions not confirmed by PDB controller"))
	}
	if b.Status.DisruptionsAllowed == 0 {
		err := apierrors.NewTooManyRequests(violationMsg, 0)
		err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{
			Type:    policyv1.DisruptionBudgetCause,
			Message: fmt.Sprintf("The disruption budget %s needs %d healthy pods and has %d currently", b.Name, b.Status.DesiredHealthy, b.Status.CurrentHealthy),
		})
		return err
	}
	b.Status.DisruptionsAllowed--
	if b.Status.DisruptionsAllowed == 0 {
		setDisruptionAllowedCondition(&b)
	}
	if dryRun {
		return nil
	}
	if b.Status.DisruptedPods == nil {
		b.Status.DisruptedPods = map[string]metav1.Time{}
	}
	b.Status.DisruptedPods[podName] = metav1.Now()
	return r.budgets.UpdateStatus(ctx, &b)
}

// setDisruptionAllowedCondition records that the budget allows no more
// disruptions, as the disruption controller would.
func setDisruptionAllowedCondition(b *policyv1.PodDisruptionBudget) {
	c := metav1.Condition{
		Type:               policyv1.DisruptionAllowedCondition,
		Status:             metav1.ConditionFalse,
		Reason:             policyv1.InsufficientPodsReason,
		ObservedGeneration: b.Status.ObservedGeneration,
		LastTransitionTime: metav1.Now(),
	}
	for i, old := range b.Status.Conditions {
		if old.Type == c.Type {
			if old.Status == c.Status {
				c.LastTransitionTime = old.LastTransitionTime
			}
			b.Status.Conditions[i] = c
			return
		}
	}
	b.Status.Conditions = append(b.Status.Conditions, c)
}

// deletePod marks the pod as a disruption target (unless dry-run), then
// deletes it with options.
func (r *EvictionREST) deletePod(ctx context.Context, name string, options *metav1.DeleteOptions) error {
	if !isDryRun(options.DryRun) {
		mark := podUpdate{update: func(pod *corev1.Pod) error {
			if err := checkPreconditions(pod, options.Preconditions); err != nil {
				return err
			}
			setPodCondition(&pod.Status, corev1.PodCondition{
				Type:    corev1.DisruptionTarget,
				Status:  corev1.ConditionTrue,
				Reason:  "EvictionByEvictionAPI",
				Message: "Eviction API: evicting",
			})
			return nil
		}}
		updated, _, err := r.statusStore.Update(ctx, name, mark, rest.ValidateAllObjectFunc, rest.ValidateAllObjectUpdateFunc, false, &metav1.UpdateOptions{})
		if err != nil {
			return err
		}
		if !resourceVersionUnset(options) {
			// Our own write moved the version the client pinned.
			options = withResourceVersion(options, updated.(*corev1.Pod).ResourceVersion)
		}
	}
	_, _, err := r.store.Delete(ctx, name, rest.ValidateAllObjectFunc, options)
	return err
}

// checkPreconditions fails with upstream's conflicts when the pod is not
// the one the client meant.
func checkPreconditions(pod *corev1.Pod, p *metav1.Preconditions) error {
	if p == nil {
		return nil
	}
	gr := corev1.Resource("Pod")
	if p.UID != nil && *p.UID != "" && *p.UID != pod.UID {
		return apierrors.NewConflict(gr, pod.Name, fmt.Errorf(
			"the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *p.UID, pod.UID))
	}
	if p.ResourceVersion != nil && *p.ResourceVersion != "" && *p.ResourceVersion != pod.ResourceVersion {
		return apierrors.NewConflict(gr, pod.Name, fmt.Errorf(
			"the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *p.ResourceVersion, pod.ResourceVersion))
	}
	return nil
}

// stillProcessing is the 429 of a budget the controller has not caught
// up with.
func stillProcessing(name string) error {
	err := apierrors.NewTooManyRequests(violationMsg, 10)
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{
		Type:    policyv1.DisruptionBudgetCause,
		Message: fmt.Sprintf("The disruption budget %s is still being processed by the server.", name),
	})
	return err
}

// propagateDryRun merges the request's dryRun into the Eviction's delete
// options; the two may not disagree.
func propagateDryRun(eviction *policyv1.Eviction, options *metav1.CreateOptions) (*metav1.DeleteOptions, error) {
	if eviction.DeleteOptions == nil {
		return &metav1.DeleteOptions{DryRun: options.DryRun}, nil
	}
	if len(eviction.DeleteOptions.DryRun) == 0 {
		eviction.DeleteOptions.DryRun = options.DryRun
		return eviction.DeleteOptions, nil
	}
	if len(options.DryRun) == 0 {
		return eviction.DeleteOptions, nil
	}
	if !reflect.DeepEqual(options.DryRun, eviction.DeleteOptions.DryRun) {
		return nil, fmt.Errorf("Non-matching dry-run options in request and content: %v and %v", options.DryRun, eviction.DeleteOptions.DryRun)
	}
	return eviction.DeleteOptions, nil
}

func isDryRun(dryRun []string) bool { return len(dryRun) > 0 }

func resourceVersionUnset(o *metav1.DeleteOptions) bool {
	return o.Preconditions == nil || o.Preconditions.ResourceVersion == nil
}

// withResourceVersion is a copy of o that deletes only version rv.
func withResourceVersion(o *metav1.DeleteOptions, rv string) *metav1.DeleteOptions {
	c := o.DeepCopy()
	if c.Preconditions == nil {
		c.Preconditions = &metav1.Preconditions{}
	}
	c.Preconditions.ResourceVersion = &rv
	return c
}

// podReady reports the Ready condition.
func podReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
