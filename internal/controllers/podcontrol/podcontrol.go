// Package podcontrol is what kube-controller-manager's workload
// controllers share: creating and deleting Pods from a PodTemplateSpec on
// behalf of an owner (with its events), the controller-ref manager that
// adopts and releases objects by selector, finding the owners an
// informer event concerns, the Pod predicates they all ask (ready,
// available, active), expectations that keep a controller from acting
// twice on a stale cache, slow-start batches and the ranking of Pods to
// delete first.
package podcontrol

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/events"
)

// Event reasons, as upstream's controller package names them.
const (
	FailedCreatePodReason     = "FailedCreate"
	SuccessfulCreatePodReason = "SuccessfulCreate"
	FailedDeletePodReason     = "FailedDelete"
	SuccessfulDeletePodReason = "SuccessfulDelete"
)

// Control creates, deletes and patches Pods for controllers, recording
// an event on the owner for each create and delete.
type Control struct {
	Client   kubernetes.Interface
	Recorder events.EventRecorder
}

// owner is what an owning object must be: its metadata and a
// runtime.Object to record events on.
type owner interface {
	metav1.Object
	runtime.Object
}

// PodFromTemplate is the Pod a controller creates from template:
// the template's labels, annotations, finalizers and spec, the
// controllerRef and generateName "<owner name>-" (the bare name when the
// prefix would not be a valid name).
func PodFromTemplate(template *corev1.PodTemplateSpec, parent metav1.Object, controllerRef *metav1.OwnerReference) (*corev1.Pod, error) {
	labels := copyMap(template.Labels)
	if len(labels) == 0 {
		return nil, fmt.Errorf("unable to create pods, no labels")
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Labels:       labels,
			Annotations:  copyMap(template.Annotations),
			GenerateName: podPrefix(parent.GetName()),
			Finalizers:   append([]string(nil), template.Finalizers...),
		},
	}
	if controllerRef != nil {
		pod.OwnerReferences = append(pod.OwnerReferences, *controllerRef)
	}
	pod.Spec = *template.Spec.DeepCopy()
	return pod, nil
}

// podPrefix is upstream's getPodsPrefix: "<name>-" unless that is not a
// valid DNS subdomain prefix.
func podPrefix(name string) string {
	prefix := name + "-"
	// A generated name appends 5 characters; the prefix must leave room.
	if len(validation.IsDNS1123Subdomain(prefix+"xxxxx")) != 0 {
		return name
	}
	return prefix
}

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// NewControllerRef is the owner reference of a controller: controller
// and blockOwnerDeletion both true.
func NewControllerRef(o metav1.Object, gvk metav1.GroupVersionKind) *metav1.OwnerReference {
	t := true
	return &metav1.OwnerReference{
		APIVersion:         metav1.GroupVersion{Group: gvk.Group, Version: gvk.Version}.String(),
		Kind:               gvk.Kind,
		Name:               o.GetName(),
		UID:                o.GetUID(),
		Controller:         &t,
		BlockOwnerDeletion: &t,
	}
}

// CreatePod creates one Pod from template in namespace for parent and
// records SuccessfulCreate or FailedCreate on parent (no event when the
// namespace is terminating, as upstream).
func (c *Control) CreatePod(ctx context.Context, namespace string, template *corev1.PodTemplateSpec, parent owner, controllerRef *metav1.OwnerReference) (*corev1.Pod, error) {
	pod, err := PodFromTemplate(template, parent, controllerRef)
	if err != nil {
		return nil, err
	}
	return c.Create(ctx, namespace, pod, parent)
}

// Create creates pod, built for parent by the caller (a DaemonSet's Pod
// for a node, a Job's indexed Pod), and records the events CreatePod
// records.
func (c *Control) Create(ctx context.Context, namespace string, pod *corev1.Pod, parent owner) (*corev1.Pod, error) {
	created, err := c.Client.CoreV1().Pods(namespace).Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		if !apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
			c.Recorder.Eventf(parent, nil, corev1.EventTypeWarning, FailedCreatePodReason, "Create", "Error creating: %v", err)
		}
		return nil, err
	}
	c.Recorder.Eventf(parent, nil, corev1.EventTypeNormal, SuccessfulCreatePodReason, "Create", "Created pod: %v", created.Name)
	return created, nil
}

// DeletePod deletes a Pod of parent and records SuccessfulDelete, or
// FailedDelete for any error but NotFound (which it returns as is).
func (c *Control) DeletePod(ctx context.Context, namespace, name string, parent owner) error {
	err := c.Client.CoreV1().Pods(namespace).Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil {
		if !apierrors.IsNotFound(err) {
			c.Recorder.Eventf(parent, nil, corev1.EventTypeWarning, FailedDeletePodReason, "Delete", "Error deleting: %v", err)
		}
		return err
	}
	c.Recorder.Eventf(parent, nil, corev1.EventTypeNormal, SuccessfulDeletePodReason, "Delete", "Deleted pod: %v", name)
	return nil
}

// PatchPod applies a strategic merge patch to a Pod (adoption, release).
func (c *Control) PatchPod(ctx context.Context, namespace, name string, patch []byte) error {
	_, err := c.Client.CoreV1().Pods(namespace).Patch(ctx, name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
	return err
}
