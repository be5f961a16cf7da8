package job

import (
	"context"
	"encoding/json"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

// podsOf returns the Pods the Job controls after claiming, as upstream's
// ClaimPods does: orphans its selector matches are adopted (controller
// reference and tracking finalizer added, once a fresh read shows the Job
// is not being deleted), and owned Pods it no longer matches released.
func (c *Controller) podsOf(ctx context.Context, job *batchv1.Job) ([]*corev1.Pod, error) {
	sel, err := metav1.LabelSelectorAsSelector(job.Spec.Selector)
	if err != nil {
		return nil, err
	}
	if sel.Empty() {
		sel = labels.Nothing()
	}
	all, err := c.podStore.Pods(job.Namespace).List(labels.Everything())
	if err != nil {
		return nil, err
	}
	var out []*corev1.Pod
	var errs []error
	canAdopt := adoptionCheck(ctx, c, job)
	for _, p := range all {
		ref := metav1.GetControllerOf(p)
		matches := sel.Matches(labels.Set(p.Labels))
		switch {
		case ref != nil && ref.UID == job.UID && matches:
			out = append(out, p)
		case ref != nil && ref.UID == job.UID:
			if job.DeletionTimestamp == nil {
				if err := c.release(ctx, job, p); err != nil {
					errs = append(errs, err)
				}
			}
		case ref == nil && matches && p.DeletionTimestamp == nil && job.DeletionTimestamp == nil:
			if err := canAdopt(); err != nil {
				errs = append(errs, err)
				continue
			}
			if err := c.adopt(ctx, job, p); err != nil {
				if !apierrors.IsNotFound(err) {
					errs = append(errs, err)
				}
				continue
			}
			// Counted from now on as a Pod of the Job, finalizer included.
			adopted := p.DeepCopy()
			adopted.OwnerReferences = append(adopted.OwnerReferences, *metav1.NewControllerRef(job, jobKind))
			if !hasFinalizer(adopted) {
				adopted.Finalizers = append(adopted.Finalizers, batchv1.JobTrackingFinalizer)
			}
			out = append(out, adopted)
		}
	}
	if len(errs) > 0 {
		return out, errs[0]
	}
	return out, nil
}

// adoptionCheck reads the Job afresh once, before the first adoption: a
// Job being deleted, or replaced under the same name, adopts nothing.
func adoptionCheck(ctx context.Context, c *Controller, job *batchv1.Job) func() error {
	var checked bool
	var result error
	return func() error {
		if checked {
			return result
		}
		checked = true
		fresh, err := c.client.BatchV1().Jobs(job.Namespace).Get(ctx, job.Name, metav1.GetOptions{})
		switch {
		case err != nil:
			result = err
		case fresh.UID != job.UID:
			result = fmt.Errorf("original Job %v/%v is gone: got uid %v, wanted %v", job.Namespace, job.Name, fresh.UID, job.UID)
		case fresh.DeletionTimestamp != nil:
			result = fmt.Errorf("%v/%v has just been deleted at %v", job.Namespace, job.Name, fresh.DeletionTimestamp)
		}
		return result
	}
}

// adopt adds the Job as controller and the tracking finalizer, guarded by
// the Pod's UID.
func (c *Controller) adopt(ctx context.Context, job *batchv1.Job, pod *corev1.Pod) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"ownerReferences": []metav1.OwnerReference{*metav1.NewControllerRef(job, jobKind)},
		"uid":             pod.UID,
		"finalizers":      []string{batchv1.JobTrackingFinalizer},
	}})
	if err != nil {
		return err
	}
	_, err = c.client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
	return err
}

// release drops the Job's owner reference and the tracking finalizer.
func (c *Controller) release(ctx context.Context, job *batchv1.Job, pod *corev1.Pod) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"ownerReferences":                     []map[string]any{{"$patch": "delete", "uid": job.UID}},
		"uid":                                 pod.UID,
		"$deleteFromPrimitiveList/finalizers": []string{batchv1.JobTrackingFinalizer},
	}})
	if err != nil {
		return err
	}
	_, err = c.client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
	if apierrors.IsNotFound(err) || apierrors.IsInvalid(err) {
		// Gone, or its UID changed: nothing of ours to release.
		return nil
	}
	return err
}
