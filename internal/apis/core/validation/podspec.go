package validation

import (
	"math"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidatePodSpec checks a pod spec at fldPath; podMeta is the metadata
// of the pod, or nil for a template. It covers the rules users meet every
// day with upstream's paths and messages: containers, volumes and mounts,
// ports, env, resources, probes, policies, node selection, tolerations.
func ValidatePodSpec(spec *corev1.PodSpec, podMeta *metav1.ObjectMeta, fldPath *field.Path) field.ErrorList {
	_ = podMeta
	volumes, allErrs := validatePodVolumes(spec.Volumes, fldPath.Child("volumes"))
	allErrs = append(allErrs, validatePodResourceClaims(spec.ResourceClaims, fldPath.Child("resourceClaims"))...)
	allErrs = append(allErrs, validatePodContainers(spec.Containers, volumes, fldPath.Child("containers"))...)
	allErrs = append(allErrs, validatePodInitContainers(spec.InitContainers, spec.Containers, volumes, fldPath.Child("initContainers"))...)
	allErrs = append(allErrs, validatePodEphemeralContainers(spec, volumes, fldPath.Child("ephemeralContainers"))...)
	allErrs = append(allErrs, validatePodContainerClaimRefs(spec, fldPath)...)
	allErrs = append(allErrs, validatePodRestartPolicy(spec.RestartPolicy, fldPath.Child("restartPolicy"))...)
	allErrs = append(allErrs, validatePodDNSPolicy(spec.DNSPolicy, fldPath.Child("dnsPolicy"))...)
	allErrs = append(allErrs, metav1validation.ValidateLabels(spec.NodeSelector, fldPath.Child("nodeSelector"))...)
	allErrs = append(allErrs, validatePodImagePullSecrets(spec.ImagePullSecrets, fldPath.Child("imagePullSecrets"))...)
	allErrs = append(allErrs, validatePodReadinessGates(spec.ReadinessGates, fldPath.Child("readinessGates"))...)
	allErrs = append(allErrs, validatePodSchedulingGates(spec.SchedulingGates, fldPath.Child("schedulingGates"))...)
	allErrs = append(allErrs, validatePodHostNetworkPorts(spec, fldPath.Child("containers"))...)
	allErrs = append(allErrs, validatePodNames(spec, fldPath)...)
	allErrs = append(allErrs, validatePodSecurityContext(spec, fldPath.Child("securityContext"))...)
	allErrs = append(allErrs, validatePodHostAliases(spec.HostAliases, fldPath.Child("hostAliases"))...)
	allErrs = append(allErrs, validatePodDNSConfig(spec, fldPath.Child("dnsConfig"))...)
	allErrs = append(allErrs, validatePodTopologySpreadConstraints(spec.TopologySpreadConstraints, fldPath.Child("topologySpreadConstraints"))...)
	allErrs = append(allErrs, validatePodAffinity(spec.Affinity, fldPath.Child("affinity"))...)
	if spec.OS != nil {
		switch spec.OS.Name {
		case corev1.Linux, corev1.Windows:
		case "":
			allErrs = append(allErrs, field.Required(fldPath.Child("os", "name"), ""))
		default:
			allErrs = append(allErrs, field.NotSupported(fldPath.Child("os", "name"), spec.OS.Name, []corev1.OSName{corev1.Linux, corev1.Windows}))
		}
	}
	if spec.ActiveDeadlineSeconds != nil {
		if v := *spec.ActiveDeadlineSeconds; v < 1 || v > math.MaxInt32 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("activeDeadlineSeconds"), v, utilvalidation.InclusiveRangeError(1, math.MaxInt32)))
		}
	}
	if len(spec.Tolerations) > 0 {
		allErrs = append(allErrs, ValidateTolerations(spec.Tolerations, fldPath.Child("tolerations"))...)
	}
	if spec.PreemptionPolicy != nil {
		switch *spec.PreemptionPolicy {
		case corev1.PreemptLowerPriority, corev1.PreemptNever:
		default:
			allErrs = append(allErrs, field.NotSupported(fldPath.Child("preemptionPolicy"), *spec.PreemptionPolicy,
				[]corev1.PreemptionPolicy{corev1.PreemptLowerPriority, corev1.PreemptNever}))
		}
	}
	if spec.Overhead != nil {
		allErrs = append(allErrs, validatePodResourceList(spec.Overhead, fldPath.Child("overhead"))...)
	}
	return allErrs
}

// ValidatePodTemplateSpec checks a pod template at fldPath (for example
// spec.template of a deployment): its labels and annotations and its spec.
// Templates may not carry ephemeral containers.
func ValidatePodTemplateSpec(template *corev1.PodTemplateSpec, fldPath *field.Path) field.ErrorList {
	allErrs := metav1validation.ValidateLabels(template.Labels, fldPath.Child("labels"))
	allErrs = append(allErrs, apimachineryvalidation.ValidateAnnotations(template.Annotations, fldPath.Child("annotations"))...)
	allErrs = append(allErrs, ValidatePodSpec(&template.Spec, nil, fldPath.Child("spec"))...)
	if len(template.Spec.EphemeralContainers) > 0 {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("spec", "ephemeralContainers"), "ephemeral containers not allowed in pod template"))
	}
	return allErrs
}

// validatePodNames checks the spec's references by name: service account,
// node, hostname, subdomain, priority class, runtime class.
func validatePodNames(spec *corev1.PodSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	invalid := func(path *field.Path, value string, msgs []string) {
		for _, msg := range msgs {
			allErrs = append(allErrs, field.Invalid(path, value, msg))
		}
	}
	if spec.ServiceAccountName != "" {
		invalid(fldPath.Child("serviceAccountName"), spec.ServiceAccountName, apimachineryvalidation.NameIsDNSSubdomain(spec.ServiceAccountName, false))
	}
	if spec.NodeName != "" {
		invalid(fldPath.Child("nodeName"), spec.NodeName, apimachineryvalidation.NameIsDNSSubdomain(spec.NodeName, false))
	}
	if spec.Hostname != "" {
		invalid(fldPath.Child("hostname"), spec.Hostname, utilvalidation.IsDNS1123Label(spec.Hostname))
	}
	if spec.Subdomain != "" {
		invalid(fldPath.Child("subdomain"), spec.Subdomain, utilvalidation.IsDNS1123Label(spec.Subdomain))
	}
	if spec.PriorityClassName != "" {
		invalid(fldPath.Child("priorityClassName"), spec.PriorityClassName, apimachineryvalidation.NameIsDNSSubdomain(spec.PriorityClassName, false))
	}
	if spec.RuntimeClassName != nil {
		invalid(fldPath.Child("runtimeClassName"), *spec.RuntimeClassName, apimachineryvalidation.NameIsDNSSubdomain(*spec.RuntimeClassName, false))
	}
	return allErrs
}

func validatePodRestartPolicy(policy corev1.RestartPolicy, fldPath *field.Path) field.ErrorList {
	switch policy {
	case corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever:
		return nil
	case "":
		return field.ErrorList{field.Required(fldPath, "")}
	}
	return field.ErrorList{field.NotSupported(fldPath, policy,
		[]corev1.RestartPolicy{corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever})}
}

func validatePodDNSPolicy(policy corev1.DNSPolicy, fldPath *field.Path) field.ErrorList {
	switch policy {
	case corev1.DNSClusterFirstWithHostNet, corev1.DNSClusterFirst, corev1.DNSDefault, corev1.DNSNone:
		return nil
	case "":
		return field.ErrorList{field.Required(fldPath, "")}
	}
	return field.ErrorList{field.NotSupported(fldPath, policy,
		[]corev1.DNSPolicy{corev1.DNSClusterFirstWithHostNet, corev1.DNSClusterFirst, corev1.DNSDefault, corev1.DNSNone})}
}

func validatePodImagePullSecrets(refs []corev1.LocalObjectReference, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, ref := range refs {
		if ref.Name == "" {
			allErrs = append(allErrs, field.Required(fldPath.Index(i).Child("name"), ""))
		}
	}
	return allErrs
}

func validatePodReadinessGates(gates []corev1.PodReadinessGate, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, gate := range gates {
		allErrs = append(allErrs, metav1validation.ValidateLabelName(string(gate.ConditionType), fldPath.Index(i).Child("conditionType"))...)
	}
	return allErrs
}

func validatePodSchedulingGates(gates []corev1.PodSchedulingGate, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	seen := sets.New[string]()
	for i, gate := range gates {
		path := fldPath.Index(i)
		allErrs = append(allErrs, metav1validation.ValidateLabelName(gate.Name, path.Child("name"))...)
		if seen.Has(gate.Name) {
			allErrs = append(allErrs, field.Duplicate(path, gate.Name))
		}
		seen.Insert(gate.Name)
	}
	return allErrs
}

// validatePodHostNetworkPorts: on the host network a container port is a
// host port, so the two must agree. Templates leave hostPort unset (only
// pods default it), which is accepted.
func validatePodHostNetworkPorts(spec *corev1.PodSpec, containersPath *field.Path) field.ErrorList {
	if !spec.HostNetwork {
		return nil
	}
	var allErrs field.ErrorList
	for i, c := range spec.Containers {
		for j, p := range c.Ports {
			if p.HostPort != 0 && p.HostPort != p.ContainerPort {
				allErrs = append(allErrs, field.Invalid(containersPath.Index(i).Child("ports").Index(j).Child("containerPort"),
					p.ContainerPort, "must match `hostPort` when `hostNetwork` is true"))
			}
		}
	}
	return allErrs
}

// ValidateTolerations checks tolerations: keys are label names, an empty
// key needs the Exists operator, tolerationSeconds goes with NoExecute,
// operator and effect are known.
func ValidateTolerations(tolerations []corev1.Toleration, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, t := range tolerations {
		path := fldPath.Index(i)
		if t.Key != "" {
			allErrs = append(allErrs, metav1validation.ValidateLabelName(t.Key, path.Child("key"))...)
		}
		if t.Key == "" && t.Operator != corev1.TolerationOpExists {
			allErrs = append(allErrs, field.Invalid(path.Child("operator"), t.Operator,
				"operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
		}
		if t.TolerationSeconds != nil && t.Effect != corev1.TaintEffectNoExecute {
			allErrs = append(allErrs, field.Invalid(path.Child("effect"), t.Effect,
				"effect must be 'NoExecute' when `tolerationSeconds` is set"))
		}
		switch t.Operator {
		case corev1.TolerationOpEqual, "":
			if errs := utilvalidation.IsValidLabelValue(t.Value); len(errs) != 0 {
				allErrs = append(allErrs, field.Invalid(path.Child("operator"), t.Value, strings.Join(errs, ";")))
			}
		case corev1.TolerationOpExists:
			if t.Value != "" {
				allErrs = append(allErrs, field.Invalid(path.Child("operator"), t, "value must be empty when `operator` is 'Exists'"))
			}
		default:
			allErrs = append(allErrs, field.NotSupported(path.Child("operator"), t.Operator,
				[]corev1.TolerationOperator{corev1.TolerationOpEqual, corev1.TolerationOpExists}))
		}
		if t.Effect != "" {
			switch t.Effect {
			case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
			default:
				allErrs = append(allErrs, field.NotSupported(path.Child("effect"), t.Effect, []corev1.TaintEffect{
					corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute}))
			}
		}
	}
	return allErrs
}
