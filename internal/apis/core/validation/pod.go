package validation

import (
	"fmt"
	"math"
	"strings"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidatePodName: pod names are DNS subdomains.
var ValidatePodName = apimachineryvalidation.NameIsDNSSubdomain

// podUpdatableFields is upstream's list in the message of a forbidden pod
// update.
var podUpdatableFields = []string{
	"`spec.containers[*].image`",
	"`spec.initContainers[*].image`",
	"`spec.activeDeadlineSeconds`",
	"`spec.tolerations` (only additions to existing tolerations)",
	"`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
}

// ValidatePod checks a new pod: metadata, spec, and what only pods (not
// templates) must satisfy. Ephemeral containers are added later through
// pods/ephemeralcontainers, never on create.
func ValidatePod(pod *corev1.Pod) field.ErrorList {
	allErrs := validatePodMetadataAndSpec(pod)
	specPath := field.NewPath("spec")
	if len(pod.Spec.EphemeralContainers) > 0 {
		allErrs = append(allErrs, field.Forbidden(specPath.Child("ephemeralContainers"), "cannot be set on create"))
	}
	if pod.Spec.NodeName != "" && len(pod.Spec.SchedulingGates) != 0 {
		allErrs = append(allErrs, field.Forbidden(specPath.Child("nodeName"), "cannot be set until all schedulingGates have been cleared"))
	}
	return allErrs
}

func validatePodMetadataAndSpec(pod *corev1.Pod) field.ErrorList {
	allErrs := ValidateObjectMeta(&pod.ObjectMeta, true, ValidatePodName, field.NewPath("metadata"))
	specPath := field.NewPath("spec")
	allErrs = append(allErrs, ValidatePodSpec(&pod.Spec, &pod.ObjectMeta, specPath)...)
	// Templates may keep " " as a placeholder image; a pod's image must be
	// pullable as written.
	check := func(path *field.Path, containers []corev1.Container) {
		for i, c := range containers {
			if c.Image != strings.TrimSpace(c.Image) {
				allErrs = append(allErrs, field.Invalid(path.Index(i).Child("image"), c.Image, "must not have leading or trailing whitespace"))
			}
		}
	}
	check(specPath.Child("containers"), pod.Spec.Containers)
	check(specPath.Child("initContainers"), pod.Spec.InitContainers)
	return allErrs
}

// ValidatePodUpdate checks an update through the main resource: the spec
// may change only in container images, activeDeadlineSeconds (set or
// lowered), added tolerations, removed scheduling gates and a negative
// grace period raised to 1.
func ValidatePodUpdate(pod, old *corev1.Pod) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&pod.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, validatePodMetadataAndSpec(pod)...)
	specPath := field.NewPath("spec")
	errs, stop := validatePodContainerUpdates(pod.Spec.Containers, old.Spec.Containers, specPath.Child("containers"))
	allErrs = append(allErrs, errs...)
	if stop {
		return allErrs
	}
	errs, stop = validatePodContainerUpdates(pod.Spec.InitContainers, old.Spec.InitContainers, specPath.Child("initContainers"))
	allErrs = append(allErrs, errs...)
	if stop {
		return allErrs
	}
	deadlinePath := specPath.Child("activeDeadlineSeconds")
	switch {
	case pod.Spec.ActiveDeadlineSeconds != nil:
		v := *pod.Spec.ActiveDeadlineSeconds
		if v < 0 || v > math.MaxInt32 {
			return append(allErrs, field.Invalid(deadlinePath, v, utilvalidation.InclusiveRangeError(0, math.MaxInt32)))
		}
		if old.Spec.ActiveDeadlineSeconds != nil && *old.Spec.ActiveDeadlineSeconds < v {
			return append(allErrs, field.Invalid(deadlinePath, v, "must be less than or equal to previous value"))
		}
	case old.Spec.ActiveDeadlineSeconds != nil:
		allErrs = append(allErrs, field.Invalid(deadlinePath, pod.Spec.ActiveDeadlineSeconds, "must not update from a positive integer to nil value"))
	}
	allErrs = append(allErrs, validatePodOnlyAddedTolerations(pod.Spec.Tolerations, old.Spec.Tolerations, specPath.Child("tolerations"))...)
	allErrs = append(allErrs, validatePodOnlyDeletedSchedulingGates(pod.Spec.SchedulingGates, old.Spec.SchedulingGates, specPath.Child("schedulingGates"))...)
	if equality.Semantic.DeepEqual(pod.Spec, old.Spec) {
		return allErrs
	}
	if PodQOSClass(old) != ComputePodQOS(pod) {
		allErrs = append(allErrs, field.Invalid(field.NewPath("metadata"), pod.Status.QOSClass, "Pod QOS is immutable"))
	}
	munged := *pod.Spec.DeepCopy()
	for i := range munged.Containers {
		munged.Containers[i].Image = old.Spec.Containers[i].Image
	}
	for i := range munged.InitContainers {
		munged.InitContainers[i].Image = old.Spec.InitContainers[i].Image
	}
	munged.ActiveDeadlineSeconds = old.Spec.ActiveDeadlineSeconds
	munged.SchedulingGates = old.Spec.SchedulingGates
	munged.Tolerations = old.Spec.Tolerations
	if g := old.Spec.TerminationGracePeriodSeconds; g != nil && *g < 0 && munged.TerminationGracePeriodSeconds != nil && *munged.TerminationGracePeriodSeconds == 1 {
		munged.TerminationGracePeriodSeconds = g
	}
	if !equality.Semantic.DeepEqual(munged, old.Spec) {
		diff := cmp.Diff(old.Spec, munged)
		allErrs = append(allErrs, field.Forbidden(specPath, fmt.Sprintf("pod updates may not change fields other than %s\n%v", strings.Join(podUpdatableFields, ","), diff)))
	}
	return allErrs
}

// validatePodContainerUpdates: containers may be neither added nor
// removed, and images stay set.
func validatePodContainerUpdates(containers, old []corev1.Container, fldPath *field.Path) (field.ErrorList, bool) {
	if len(containers) != len(old) {
		return field.ErrorList{field.Forbidden(fldPath, "pod updates may not add or remove containers")}, true
	}
	var allErrs field.ErrorList
	for i, c := range containers {
		if c.Image == "" {
			allErrs = append(allErrs, field.Required(fldPath.Index(i).Child("image"), ""))
		}
	}
	return allErrs, false
}

// validatePodOnlyAddedTolerations: every old toleration is kept, except
// that a NoExecute one may shorten its tolerationSeconds.
func validatePodOnlyAddedTolerations(tolerations, old []corev1.Toleration, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for _, o := range old {
		found := false
		oc := o
		oc.TolerationSeconds = nil
		for _, n := range tolerations {
			nc := n
			nc.TolerationSeconds = nil
			if equality.Semantic.DeepEqual(oc, nc) {
				found = true
				break
			}
		}
		if !found {
			allErrs = append(allErrs, field.Forbidden(fldPath, "existing toleration can not be modified except its tolerationSeconds"))
			return allErrs
		}
	}
	return allErrs
}

func validatePodOnlyDeletedSchedulingGates(gates, old []corev1.PodSchedulingGate, fldPath *field.Path) field.ErrorList {
	if len(gates) == 0 {
		return nil
	}
	had := map[string]bool{}
	for _, g := range old {
		had[g.Name] = true
	}
	for i, g := range gates {
		if !had[g.Name] {
			return field.ErrorList{field.Forbidden(fldPath.Index(i), "only deletion is allowed, but found new scheduling gate '"+g.Name+"'")}
		}
	}
	return nil
}

// ValidatePodStatusUpdate checks a write of pods/status: metadata, the
// node the pod runs on, container states that cannot go back, IPs.
func ValidatePodStatusUpdate(pod, old *corev1.Pod) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&pod.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	statusPath := field.NewPath("status")
	if pod.Spec.NodeName != old.Spec.NodeName {
		allErrs = append(allErrs, field.Forbidden(statusPath.Child("nodeName"), "may not be changed directly"))
	}
	if n := pod.Status.NominatedNodeName; n != "" {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(n, false) {
			allErrs = append(allErrs, field.Invalid(statusPath.Child("nominatedNodeName"), n, msg))
		}
	}
	allErrs = append(allErrs, validatePodTerminatedStates(pod.Status.ContainerStatuses, old.Status.ContainerStatuses, statusPath.Child("containerStatuses"), pod.Spec.RestartPolicy)...)
	allErrs = append(allErrs, validatePodTerminatedStates(pod.Status.InitContainerStatuses, old.Status.InitContainerStatuses, statusPath.Child("initContainerStatuses"), pod.Spec.RestartPolicy)...)
	allErrs = append(allErrs, validatePodResourceClaimStatuses(pod.Status.ResourceClaimStatuses, pod.Spec.ResourceClaims, statusPath.Child("resourceClaimStatuses"))...)
	allErrs = append(allErrs, validatePodIPs(pod.Status.PodIPs, pod.Status.PodIP, statusPath)...)
	return allErrs
}

// validatePodTerminatedStates: with restartPolicy Never a terminated
// container stays terminated.
func validatePodTerminatedStates(statuses, old []corev1.ContainerStatus, fldPath *field.Path, policy corev1.RestartPolicy) field.ErrorList {
	if policy != corev1.RestartPolicyNever {
		return nil
	}
	var allErrs field.ErrorList
	for i, s := range statuses {
		for _, o := range old {
			if o.Name == s.Name && o.State.Terminated != nil && s.State.Terminated == nil {
				allErrs = append(allErrs, field.Forbidden(fldPath.Index(i).Child("state"), "may not be transitioned to non-terminated state"))
			}
		}
	}
	return allErrs
}

func validatePodIPs(ips []corev1.PodIP, podIP string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(ips) > 0 && podIP != "" && ips[0].IP != podIP {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("podIPs").Index(0).Child("ip"), ips[0].IP, "must be equal to `podIP`"))
	}
	seen := map[string]bool{}
	for i, ip := range ips {
		p := fldPath.Child("podIPs").Index(i).Child("ip")
		allErrs = append(allErrs, utilvalidation.IsValidIP(p, ip.IP)...)
		if seen[ip.IP] {
			allErrs = append(allErrs, field.Duplicate(p, ip.IP))
		}
		seen[ip.IP] = true
	}
	if len(ips) > 2 {
		allErrs = append(allErrs, field.TooMany(fldPath.Child("podIPs"), len(ips), 2))
	}
	return allErrs
}

// ValidatePodEphemeralContainersUpdate checks a write of
// pods/ephemeralcontainers: the new containers are valid, and existing
// ones are neither removed nor changed.
func ValidatePodEphemeralContainersUpdate(pod, old *corev1.Pod) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&pod.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, validatePodMetadataAndSpec(pod)...)
	specPath := field.NewPath("spec", "ephemeralContainers")
	current := map[string]*corev1.EphemeralContainer{}
	for i := range pod.Spec.EphemeralContainers {
		current[pod.Spec.EphemeralContainers[i].Name] = &pod.Spec.EphemeralContainers[i]
	}
	for _, o := range old.Spec.EphemeralContainers {
		n, ok := current[o.Name]
		switch {
		case !ok:
			allErrs = append(allErrs, field.Forbidden(specPath, fmt.Sprintf("existing ephemeral containers %q may not be removed\n", o.Name)))
		case !equality.Semantic.DeepEqual(o, *n):
			allErrs = append(allErrs, field.Forbidden(specPath, fmt.Sprintf("existing ephemeral containers %q may not be changed\n%v", o.Name, cmp.Diff(o, *n))))
		}
	}
	return allErrs
}

// ValidatePodResize checks a write of pods/resize: only the cpu and
// memory of containers may change, and the QoS class may not.
func ValidatePodResize(pod, old *corev1.Pod) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&pod.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, validatePodMetadataAndSpec(pod)...)
	specPath := field.NewPath("spec")
	if PodQOSClass(old) != ComputePodQOS(pod) {
		allErrs = append(allErrs, field.Invalid(specPath, pod.Status.QOSClass, "Pod QOS Class may not change as a result of resizing"))
	}
	munged := pod.Spec.DeepCopy()
	if len(munged.Containers) == len(old.Spec.Containers) && len(munged.InitContainers) == len(old.Spec.InitContainers) {
		for i := range munged.Containers {
			allErrs = append(allErrs, validatePodResizeResources(munged.Containers[i].Resources, old.Spec.Containers[i].Resources, specPath.Child("containers").Index(i).Child("resources"))...)
			munged.Containers[i].Resources = old.Spec.Containers[i].Resources
			munged.Containers[i].ResizePolicy = old.Spec.Containers[i].ResizePolicy
		}
		for i := range munged.InitContainers {
			munged.InitContainers[i].Resources = old.Spec.InitContainers[i].Resources
			munged.InitContainers[i].ResizePolicy = old.Spec.InitContainers[i].ResizePolicy
		}
	}
	if !equality.Semantic.DeepEqual(*munged, old.Spec) {
		allErrs = append(allErrs, field.Forbidden(specPath, fmt.Sprintf("pod resize may not change fields other than cpu and memory\n%v", cmp.Diff(old.Spec, *munged))))
	}
	return allErrs
}

// validatePodResizeResources: only cpu and memory may change.
func validatePodResizeResources(res, old corev1.ResourceRequirements, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for _, lists := range []struct {
		name     string
		new, old corev1.ResourceList
	}{{"limits", res.Limits, old.Limits}, {"requests", res.Requests, old.Requests}} {
		names := map[corev1.ResourceName]bool{}
		for n := range lists.new {
			names[n] = true
		}
		for n := range lists.old {
			names[n] = true
		}
		for n := range names {
			if n == corev1.ResourceCPU || n == corev1.ResourceMemory {
				continue
			}
			a, aok := lists.new[n]
			b, bok := lists.old[n]
			if aok != bok || a.Cmp(b) != 0 {
				allErrs = append(allErrs, field.Forbidden(fldPath.Child(lists.name).Key(string(n)), "only cpu and memory resources are mutable"))
			}
		}
	}
	return allErrs
}

// ValidatePodBinding checks a Binding: it names a target, a Node.
func ValidatePodBinding(b *corev1.Binding) field.ErrorList {
	var allErrs field.ErrorList
	if b.Target.Kind != "" && b.Target.Kind != "Node" {
		allErrs = append(allErrs, field.NotSupported(field.NewPath("target", "kind"), b.Target.Kind, []string{"Node", "<empty>"}))
	}
	if b.Target.Name == "" {
		allErrs = append(allErrs, field.Required(field.NewPath("target", "name"), ""))
	}
	return allErrs
}
