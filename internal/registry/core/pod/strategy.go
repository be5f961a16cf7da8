// Package pod is the REST storage of core/v1 pods and their subresources:
// status, binding, eviction, ephemeralcontainers, resize, and the
// kubelet-backed log, exec, attach, portforward and proxy, which answer 503
// because kapi runs no kubelet. It also serves the legacy top-level
// bindings resource.
package pod

import (
	"context"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/core/validation"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how pods are created, updated and deleted through the
// main resource: status is server-owned, the spec is nearly immutable,
// and deletion is graceful.
type Strategy struct {
	rest.DefaultStrategy
}

var (
	_ rest.RESTCreateStrategy         = Strategy{}
	_ rest.RESTUpdateStrategy         = Strategy{}
	_ rest.RESTGracefulDeleteStrategy = Strategy{}
	_ rest.ResetFieldsStrategy        = Strategy{}
	_ rest.RESTUpdateStrategy         = StatusStrategy{}
	_ rest.RESTUpdateStrategy         = EphemeralContainersStrategy{}
	_ rest.RESTUpdateStrategy         = ResizeStrategy{}
)

// NewStrategy returns the pod strategy; typer is the server's scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.DefaultStrategy{ObjectTyper: typer}}
}

// PrepareForCreate starts the pod Pending with its computed QoS class at
// generation 1; a pod held by scheduling gates says so in a condition.
func (Strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	pod := obj.(*corev1.Pod)
	pod.Generation = 1
	pod.Status = corev1.PodStatus{Phase: corev1.PodPending, QOSClass: validation.ComputePodQOS(pod)}
	if len(pod.Spec.SchedulingGates) > 0 {
		pod.Status.Conditions = []corev1.PodCondition{{
			Type:    corev1.PodScheduled,
			Status:  corev1.ConditionFalse,
			Reason:  corev1.PodReasonSchedulingGated,
			Message: "Scheduling is blocked due to non-empty scheduling gates",
		}}
	}
}

// PrepareForUpdate keeps the stored status and bumps generation when the
// spec changed.
func (Strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	obj.(*corev1.Pod).Status = old.(*corev1.Pod).Status
	rest.BumpGenerationOnChange(obj, old, "Spec")
}

// Validate checks a new pod.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidatePod(obj.(*corev1.Pod))
}

// ValidateUpdate checks an update: metadata and the few mutable spec
// fields.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidatePodUpdate(obj.(*corev1.Pod), old.(*corev1.Pod))
}

// WarningsOnCreate warns about names that make odd hostnames and about a
// negative grace period.
func (Strategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	pod := obj.(*corev1.Pod)
	var warnings []string
	if msgs := utilvalidation.IsDNS1123Label(pod.Name); len(msgs) != 0 {
		warnings = append(warnings, fmt.Sprintf("metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: %v", msgs))
	}
	return append(warnings, validation.WarningsForPodSpec(&pod.Spec, field.NewPath("spec"))...)
}

// CheckGracefulDelete gives the pod its grace period: the request's, else
// the spec's. A pod that never reached a node, or has finished, goes at
// once: no kubelet has anything to stop.
func (Strategy) CheckGracefulDelete(_ context.Context, obj runtime.Object, options *metav1.DeleteOptions) bool {
	if options == nil {
		return false
	}
	pod := obj.(*corev1.Pod)
	period := int64(0)
	switch {
	case options.GracePeriodSeconds != nil:
		period = *options.GracePeriodSeconds
	case pod.Spec.TerminationGracePeriodSeconds != nil:
		period = *pod.Spec.TerminationGracePeriodSeconds
	}
	if pod.Spec.NodeName == "" || pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded {
		period = 0
	}
	if period < 0 {
		period = 1
	}
	options.GracePeriodSeconds = &period
	return true
}

// GetResetFields: writes of the main resource ignore status.
func (Strategy) GetResetFields() map[string]struct{} {
	return map[string]struct{}{"status": {}}
}

// StatusStrategy is the update strategy of pods/status: the kubelet's
// write. Spec and owner references are kept, deletion cannot start here,
// and the QoS class and observed generations survive clients that drop
// them.
type StatusStrategy struct {
	Strategy
}

// PrepareForUpdate keeps what a status write may not change.
func (StatusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	pod, oldPod := obj.(*corev1.Pod), old.(*corev1.Pod)
	pod.Spec = oldPod.Spec
	pod.DeletionTimestamp = nil
	pod.OwnerReferences = oldPod.OwnerReferences
	if pod.Status.QOSClass == "" {
		pod.Status.QOSClass = oldPod.Status.QOSClass
	}
	if pod.Status.ObservedGeneration == 0 {
		pod.Status.ObservedGeneration = oldPod.Status.ObservedGeneration
	}
	previous := map[corev1.PodConditionType][]int64{}
	for _, c := range oldPod.Status.Conditions {
		previous[c.Type] = append(previous[c.Type], c.ObservedGeneration)
	}
	for i, c := range pod.Status.Conditions {
		gen := int64(0)
		if gens := previous[c.Type]; len(gens) > 0 {
			gen, previous[c.Type] = gens[0], gens[1:]
		}
		if c.ObservedGeneration == 0 {
			pod.Status.Conditions[i].ObservedGeneration = gen
		}
	}
}

// ValidateUpdate checks the status write.
func (StatusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidatePodStatusUpdate(obj.(*corev1.Pod), old.(*corev1.Pod))
}

// GetResetFields: status writes ignore spec.
func (StatusStrategy) GetResetFields() map[string]struct{} {
	return map[string]struct{}{"spec": {}}
}

// EphemeralContainersStrategy is the update strategy of
// pods/ephemeralcontainers: only spec.ephemeralContainers is taken.
type EphemeralContainersStrategy struct {
	Strategy
}

// PrepareForUpdate keeps everything but the ephemeral containers.
func (EphemeralContainersStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	pod, oldPod := obj.(*corev1.Pod), old.(*corev1.Pod)
	ephemeral := pod.Spec.EphemeralContainers
	pod.Spec = *oldPod.Spec.DeepCopy()
	pod.Spec.EphemeralContainers = ephemeral
	pod.Status = oldPod.Status
	metav1.ResetObjectMetaForStatus(pod, oldPod)
	rest.BumpGenerationOnChange(obj, old, "Spec")
}

// ValidateUpdate checks the new ephemeral containers.
func (EphemeralContainersStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidatePodEphemeralContainersUpdate(obj.(*corev1.Pod), old.(*corev1.Pod))
}

// ResizeStrategy is the update strategy of pods/resize: only the
// resources and resize policies of containers are taken.
type ResizeStrategy struct {
	Strategy
}

// PrepareForUpdate keeps everything but container resources. Added,
// removed or renamed containers are left for validation to reject.
func (ResizeStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	pod, oldPod := obj.(*corev1.Pod), old.(*corev1.Pod)
	if containers, ok := takeResources(pod.Spec.Containers, oldPod.Spec.Containers); ok {
		if initContainers, ok := takeResources(pod.Spec.InitContainers, oldPod.Spec.InitContainers); ok {
			pod.Spec = *oldPod.Spec.DeepCopy()
			pod.Spec.Containers, pod.Spec.InitContainers = containers, initContainers
		}
	}
	pod.Status = oldPod.Status
	metav1.ResetObjectMetaForStatus(pod, oldPod)
	rest.BumpGenerationOnChange(obj, old, "Spec")
}

// takeResources returns old with the resources of containers, or false
// when the containers are not the same ones.
func takeResources(containers, old []corev1.Container) ([]corev1.Container, bool) {
	if len(containers) != len(old) {
		return nil, false
	}
	out := make([]corev1.Container, len(old))
	for i := range old {
		if containers[i].Name != old[i].Name {
			return nil, false
		}
		out[i] = *old[i].DeepCopy()
		out[i].Resources = containers[i].Resources
		out[i].ResizePolicy = containers[i].ResizePolicy
	}
	return out, true
}

// ValidateUpdate checks the resize.
func (ResizeStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidatePodResize(obj.(*corev1.Pod), old.(*corev1.Pod))
}

// GetAttrs returns a pod's labels and selectable fields, those upstream
// offers: metadata name and namespace, spec.nodeName, restartPolicy,
// schedulerName, serviceAccountName, hostNetwork, status.phase, podIP and
// nominatedNodeName.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return nil, nil, fmt.Errorf("not a pod: %T", obj)
	}
	ls, fs, err := generic.DefaultNamespaceScopedAttr(pod)
	if err != nil {
		return nil, nil, err
	}
	fs["spec.nodeName"] = pod.Spec.NodeName
	fs["spec.restartPolicy"] = string(pod.Spec.RestartPolicy)
	fs["spec.schedulerName"] = pod.Spec.SchedulerName
	fs["spec.serviceAccountName"] = pod.Spec.ServiceAccountName
	fs["spec.hostNetwork"] = strconv.FormatBool(pod.Spec.HostNetwork)
	fs["status.phase"] = string(pod.Status.Phase)
	fs["status.podIP"] = ""
	if len(pod.Status.PodIPs) > 0 {
		fs["status.podIP"] = pod.Status.PodIPs[0].IP
	}
	fs["status.nominatedNodeName"] = pod.Status.NominatedNodeName
	return ls, fs, nil
}
