package job

import (
	"context"
	"encoding/json"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/kapi-dev/kapi/internal/controllers/podcontrol"
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
	m := &podcontrol.RefManager{
		Owner: job, OwnerGVK: metav1.GroupVersionKind(jobKind), Selector: sel,
		CanAdopt: podcontrol.RecheckDeletion(func(ctx context.Context) (metav1.Object, error) {
			return c.client.BatchV1().Jobs(job.Namespace).Get(ctx, job.Name, metav1.GetOptions{})
		}, jobKind.Kind, job),
	}
	adopted := sets.New[types.UID]()
	adopt := func(ctx context.Context, p *corev1.Pod) error {
		if err := c.adopt(ctx, job, p); err != nil {
			return err
		}
		adopted.Insert(p.UID)
		return nil
	}
	release := func(ctx context.Context, p *corev1.Pod) error { return c.release(ctx, job, p) }
	out, err := podcontrol.Claim(ctx, m, all, adopt, release)
	for i, p := range out {
		if !adopted.Has(p.UID) {
			continue
		}
		// Counted from now on as a Pod of the Job, finalizer included.
		a := p.DeepCopy()
		a.OwnerReferences = append(a.OwnerReferences, *metav1.NewControllerRef(job, jobKind))
		if !hasFinalizer(a) {
			a.Finalizers = append(a.Finalizers, batchv1.JobTrackingFinalizer)
		}
		out[i] = a
	}
	return out, err
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

// removeFinalizer drops the job-tracking finalizer with a strategic merge
// patch, as upstream does, so other finalizers are left alone.
func (c *Controller) removeFinalizer(ctx context.Context, pod *corev1.Pod) error {
	patch := []byte(`{"metadata":{"$deleteFromPrimitiveList/finalizers":["` + batchv1.JobTrackingFinalizer + `"]}}`)
	return c.pods.PatchPod(ctx, pod.Namespace, pod.Name, patch)
}

// createPod creates one Pod of job from template (the Job's, or an
// index's) named generateName plus a random suffix.
func (c *Controller) createPod(ctx context.Context, job *batchv1.Job, template *corev1.PodTemplateSpec, generateName string) error {
	pod, err := podcontrol.PodFromTemplate(template, job, podcontrol.NewControllerRef(job, metav1.GroupVersionKind(jobKind)))
	if err != nil {
		return err
	}
	pod.Namespace, pod.GenerateName = job.Namespace, generateName
	_, err = c.pods.Create(ctx, job.Namespace, pod, job)
	return err
}
