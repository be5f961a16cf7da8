package validation

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// podPortProtocols are the protocols a container port may use.
var podPortProtocols = []corev1.Protocol{corev1.ProtocolSCTP, corev1.ProtocolTCP, corev1.ProtocolUDP}

// validatePodContainers checks the regular containers: at least one,
// unique names, and what every container must satisfy.
func validatePodContainers(containers []corev1.Container, volumes map[string]corev1.VolumeSource, fldPath *field.Path) field.ErrorList {
	if len(containers) == 0 {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	var allErrs field.ErrorList
	names := sets.New[string]()
	for i := range containers {
		c := &containers[i]
		path := fldPath.Index(i)
		allErrs = append(allErrs, validatePodContainerCommon(c, volumes, path)...)
		if names.Has(c.Name) {
			allErrs = append(allErrs, field.Duplicate(path.Child("name"), c.Name))
		} else {
			names.Insert(c.Name)
		}
		allErrs = append(allErrs, validatePodContainerProbesAndHooks(c, path)...)
		if c.RestartPolicy != nil {
			allErrs = append(allErrs, field.Forbidden(path.Child("restartPolicy"), "may not be set for non-init containers"))
		}
	}
	return append(allErrs, validatePodHostPortConflicts(containers, fldPath)...)
}

// validatePodInitContainers checks init containers: names unique among
// all regular and init containers, restartPolicy Always only (sidecars),
// and probes and lifecycle hooks for sidecars only.
func validatePodInitContainers(containers, regular []corev1.Container, volumes map[string]corev1.VolumeSource, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	names := sets.New[string]()
	for _, c := range regular {
		names.Insert(c.Name)
	}
	for i := range containers {
		c := &containers[i]
		path := fldPath.Index(i)
		allErrs = append(allErrs, validatePodContainerCommon(c, volumes, path)...)
		sidecar := false
		if c.RestartPolicy != nil {
			sidecar = *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
			if !sidecar {
				allErrs = append(allErrs, field.NotSupported(path.Child("restartPolicy"), *c.RestartPolicy,
					[]corev1.ContainerRestartPolicy{corev1.ContainerRestartPolicyAlways}))
			}
		}
		if names.Has(c.Name) {
			allErrs = append(allErrs, field.Duplicate(path.Child("name"), c.Name))
		} else if c.Name != "" {
			names.Insert(c.Name)
		}
		// Init containers run one by one: host ports conflict only within one.
		allErrs = append(allErrs, validatePodHostPortConflicts(containers[i:i+1], fldPath)...)
		if sidecar {
			allErrs = append(allErrs, validatePodContainerProbesAndHooks(c, path)...)
			continue
		}
		const notSidecar = "may not be set for init containers without restartPolicy=Always"
		if c.Lifecycle != nil {
			allErrs = append(allErrs, field.Forbidden(path.Child("lifecycle"), notSidecar))
		}
		if c.LivenessProbe != nil {
			allErrs = append(allErrs, field.Forbidden(path.Child("livenessProbe"), notSidecar))
		}
		if c.ReadinessProbe != nil {
			allErrs = append(allErrs, field.Forbidden(path.Child("readinessProbe"), "may not be set for init containers"))
		}
		if c.StartupProbe != nil {
			allErrs = append(allErrs, field.Forbidden(path.Child("startupProbe"), notSidecar))
		}
	}
	return allErrs
}

// validatePodEphemeralContainers checks debugging containers: unique names
// across every container, an existing target, and none of the fields that
// would make the pod depend on them.
func validatePodEphemeralContainers(spec *corev1.PodSpec, volumes map[string]corev1.VolumeSource, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	others, names := sets.New[string](), sets.New[string]()
	for _, c := range spec.Containers {
		others.Insert(c.Name)
	}
	for _, c := range spec.InitContainers {
		others.Insert(c.Name)
	}
	const msg = "cannot be set for an Ephemeral Container"
	for i := range spec.EphemeralContainers {
		ec := &spec.EphemeralContainers[i]
		path := fldPath.Index(i)
		c := (*corev1.Container)(&ec.EphemeralContainerCommon)
		allErrs = append(allErrs, validatePodContainerCommon(c, volumes, path)...)
		switch {
		case others.Has(ec.Name):
			allErrs = append(allErrs, field.Invalid(path.Child("name"), ec.Name, "must be unique among all containers, init containers and ephemeral containers"))
		case names.Has(ec.Name):
			allErrs = append(allErrs, field.Duplicate(path.Child("name"), ec.Name))
		default:
			names.Insert(ec.Name)
		}
		if ec.TargetContainerName != "" && !others.Has(ec.TargetContainerName) {
			allErrs = append(allErrs, field.NotFound(path.Child("targetContainerName"), ec.TargetContainerName))
		}
		forbidden := map[string]bool{
			"ports":          len(c.Ports) > 0,
			"resources":      len(c.Resources.Limits) > 0 || len(c.Resources.Requests) > 0 || len(c.Resources.Claims) > 0,
			"resizePolicy":   len(c.ResizePolicy) > 0,
			"lifecycle":      c.Lifecycle != nil,
			"livenessProbe":  c.LivenessProbe != nil,
			"readinessProbe": c.ReadinessProbe != nil,
			"startupProbe":   c.StartupProbe != nil,
			"restartPolicy":  c.RestartPolicy != nil,
		}
		for _, name := range []string{"ports", "resources", "resizePolicy", "lifecycle", "livenessProbe", "readinessProbe", "startupProbe", "restartPolicy"} {
			if forbidden[name] {
				allErrs = append(allErrs, field.Forbidden(path.Child(name), msg))
			}
		}
		for j, vm := range c.VolumeMounts {
			if vm.SubPath != "" {
				allErrs = append(allErrs, field.Forbidden(path.Child("volumeMounts").Index(j).Child("subPath"), msg))
			}
			if vm.SubPathExpr != "" {
				allErrs = append(allErrs, field.Forbidden(path.Child("volumeMounts").Index(j).Child("subPathExpr"), msg))
			}
		}
	}
	return allErrs
}

// validatePodContainerCommon is what every container (regular, init,
// ephemeral) must satisfy.
func validatePodContainerCommon(c *corev1.Container, volumes map[string]corev1.VolumeSource, path *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	namePath := path.Child("name")
	if c.Name == "" {
		allErrs = append(allErrs, field.Required(namePath, ""))
	} else {
		for _, msg := range utilvalidation.IsDNS1123Label(c.Name) {
			allErrs = append(allErrs, field.Invalid(namePath, c.Name, msg))
		}
	}
	if c.Image == "" {
		allErrs = append(allErrs, field.Required(path.Child("image"), ""))
	}
	switch c.TerminationMessagePolicy {
	case corev1.TerminationMessageReadFile, corev1.TerminationMessageFallbackToLogsOnError:
	case "":
		allErrs = append(allErrs, field.Required(path.Child("terminationMessagePolicy"), ""))
	default:
		allErrs = append(allErrs, field.NotSupported(path.Child("terminationMessagePolicy"), c.TerminationMessagePolicy,
			[]corev1.TerminationMessagePolicy{corev1.TerminationMessageReadFile, corev1.TerminationMessageFallbackToLogsOnError}))
	}
	allErrs = append(allErrs, validatePodContainerPorts(c.Ports, path.Child("ports"))...)
	allErrs = append(allErrs, validatePodEnv(c.Env, path.Child("env"))...)
	allErrs = append(allErrs, validatePodEnvFrom(c.EnvFrom, path.Child("envFrom"))...)
	allErrs = append(allErrs, validatePodVolumeMounts(c.VolumeMounts, volumes, path.Child("volumeMounts"))...)
	switch c.ImagePullPolicy {
	case corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever:
	case "":
		allErrs = append(allErrs, field.Required(path.Child("imagePullPolicy"), ""))
	default:
		allErrs = append(allErrs, field.NotSupported(path.Child("imagePullPolicy"), c.ImagePullPolicy,
			[]corev1.PullPolicy{corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever}))
	}
	allErrs = append(allErrs, validatePodResources(&c.Resources, path.Child("resources"))...)
	allErrs = append(allErrs, validateContainerSecurityContext(c.SecurityContext, path.Child("securityContext"))...)
	return allErrs
}

// validatePodContainerPorts checks port names (IANA_SVC_NAME, unique),
// numbers and protocols.
func validatePodContainerPorts(ports []corev1.ContainerPort, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	names := sets.New[string]()
	for i, p := range ports {
		path := fldPath.Index(i)
		if p.Name != "" {
			if msgs := utilvalidation.IsValidPortName(p.Name); len(msgs) != 0 {
				for _, msg := range msgs {
					allErrs = append(allErrs, field.Invalid(path.Child("name"), p.Name, msg))
				}
			} else if names.Has(p.Name) {
				allErrs = append(allErrs, field.Duplicate(path.Child("name"), p.Name))
			} else {
				names.Insert(p.Name)
			}
		}
		if p.ContainerPort == 0 {
			allErrs = append(allErrs, field.Required(path.Child("containerPort"), ""))
		} else {
			for _, msg := range utilvalidation.IsValidPortNum(int(p.ContainerPort)) {
				allErrs = append(allErrs, field.Invalid(path.Child("containerPort"), p.ContainerPort, msg))
			}
		}
		if p.HostPort != 0 {
			for _, msg := range utilvalidation.IsValidPortNum(int(p.HostPort)) {
				allErrs = append(allErrs, field.Invalid(path.Child("hostPort"), p.HostPort, msg))
			}
		}
		switch p.Protocol {
		case corev1.ProtocolTCP, corev1.ProtocolUDP, corev1.ProtocolSCTP:
		case "":
			allErrs = append(allErrs, field.Required(path.Child("protocol"), ""))
		default:
			allErrs = append(allErrs, field.NotSupported(path.Child("protocol"), p.Protocol, podPortProtocols))
		}
	}
	return allErrs
}

// validatePodHostPortConflicts rejects two ports asking for the same
// protocol, host IP and host port.
func validatePodHostPortConflicts(containers []corev1.Container, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	seen := sets.New[string]()
	for i, c := range containers {
		for j, p := range c.Ports {
			if p.HostPort == 0 {
				continue
			}
			key := fmt.Sprintf("%s/%s/%d", p.Protocol, p.HostIP, p.HostPort)
			if seen.Has(key) {
				allErrs = append(allErrs, field.Duplicate(fldPath.Index(i).Child("ports").Index(j).Child("hostPort"), key))
			}
			seen.Insert(key)
		}
	}
	return allErrs
}

// validatePodContainerProbesAndHooks checks the probes and lifecycle
// hooks of a container that may have them.
func validatePodContainerProbesAndHooks(c *corev1.Container, path *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if c.Lifecycle != nil {
		if c.Lifecycle.PostStart != nil {
			allErrs = append(allErrs, validatePodLifecycleHandler(c.Lifecycle.PostStart, path.Child("lifecycle", "postStart"))...)
		}
		if c.Lifecycle.PreStop != nil {
			allErrs = append(allErrs, validatePodLifecycleHandler(c.Lifecycle.PreStop, path.Child("lifecycle", "preStop"))...)
		}
	}
	for _, probe := range []struct {
		p    *corev1.Probe
		name string
	}{{c.LivenessProbe, "livenessProbe"}, {c.ReadinessProbe, "readinessProbe"}, {c.StartupProbe, "startupProbe"}} {
		if probe.p == nil {
			continue
		}
		probePath := path.Child(probe.name)
		allErrs = append(allErrs, validatePodProbe(probe.p, probePath)...)
		if probe.name != "readinessProbe" && probe.p.SuccessThreshold != 1 {
			allErrs = append(allErrs, field.Invalid(probePath.Child("successThreshold"), probe.p.SuccessThreshold, "must be 1"))
		}
		if probe.name == "readinessProbe" && probe.p.TerminationGracePeriodSeconds != nil {
			allErrs = append(allErrs, field.Invalid(probePath.Child("terminationGracePeriodSeconds"), probe.p.TerminationGracePeriodSeconds, "must not be set for readinessProbes"))
		}
	}
	return allErrs
}

func validatePodProbe(p *corev1.Probe, fldPath *field.Path) field.ErrorList {
	allErrs := validatePodProbeHandler(&p.ProbeHandler, fldPath)
	for _, f := range []struct {
		v    int32
		name string
	}{{p.InitialDelaySeconds, "initialDelaySeconds"}, {p.TimeoutSeconds, "timeoutSeconds"}, {p.PeriodSeconds, "periodSeconds"},
		{p.SuccessThreshold, "successThreshold"}, {p.FailureThreshold, "failureThreshold"}} {
		allErrs = append(allErrs, apimachineryvalidation.ValidateNonnegativeField(int64(f.v), fldPath.Child(f.name))...)
	}
	if p.TerminationGracePeriodSeconds != nil && *p.TerminationGracePeriodSeconds <= 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("terminationGracePeriodSeconds"), *p.TerminationGracePeriodSeconds, "must be greater than 0"))
	}
	return allErrs
}

// validatePodProbeHandler: exactly one of exec, httpGet, tcpSocket, grpc.
func validatePodProbeHandler(h *corev1.ProbeHandler, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	set := 0
	one := func(name string) bool {
		set++
		if set > 1 {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child(name), "may not specify more than 1 handler type"))
			return false
		}
		return true
	}
	if h.Exec != nil && one("exec") {
		allErrs = append(allErrs, validatePodExecAction(h.Exec, fldPath.Child("exec"))...)
	}
	if h.HTTPGet != nil && one("httpGet") {
		allErrs = append(allErrs, validatePodHTTPGetAction(h.HTTPGet, fldPath.Child("httpGet"))...)
	}
	if h.TCPSocket != nil && one("tcpSocket") {
		allErrs = append(allErrs, validatePodPortNumOrName(h.TCPSocket.Port, fldPath.Child("tcpSocket", "port"))...)
	}
	if h.GRPC != nil && one("grpc") {
		for _, msg := range utilvalidation.IsValidPortNum(int(h.GRPC.Port)) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("grpc", "port"), h.GRPC.Port, msg))
		}
	}
	if set == 0 {
		allErrs = append(allErrs, field.Required(fldPath, "must specify a handler type"))
	}
	return allErrs
}

// validatePodLifecycleHandler: exactly one of exec, httpGet, tcpSocket,
// sleep.
func validatePodLifecycleHandler(h *corev1.LifecycleHandler, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	set := 0
	one := func(name string) bool {
		set++
		if set > 1 {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child(name), "may not specify more than 1 handler type"))
			return false
		}
		return true
	}
	if h.Exec != nil && one("exec") {
		allErrs = append(allErrs, validatePodExecAction(h.Exec, fldPath.Child("exec"))...)
	}
	if h.HTTPGet != nil && one("httpGet") {
		allErrs = append(allErrs, validatePodHTTPGetAction(h.HTTPGet, fldPath.Child("httpGet"))...)
	}
	if h.TCPSocket != nil && one("tcpSocket") {
		allErrs = append(allErrs, validatePodPortNumOrName(h.TCPSocket.Port, fldPath.Child("tcpSocket", "port"))...)
	}
	if h.Sleep != nil && one("sleep") && h.Sleep.Seconds < 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("sleep", "seconds"), h.Sleep.Seconds, "must be non-negative"))
	}
	if set == 0 {
		allErrs = append(allErrs, field.Required(fldPath, "must specify a handler type"))
	}
	return allErrs
}

func validatePodExecAction(a *corev1.ExecAction, fldPath *field.Path) field.ErrorList {
	if len(a.Command) == 0 {
		return field.ErrorList{field.Required(fldPath.Child("command"), "")}
	}
	return nil
}

func validatePodHTTPGetAction(a *corev1.HTTPGetAction, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if a.Path == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("path"), ""))
	}
	allErrs = append(allErrs, validatePodPortNumOrName(a.Port, fldPath.Child("port"))...)
	if a.Scheme != corev1.URISchemeHTTP && a.Scheme != corev1.URISchemeHTTPS {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("scheme"), a.Scheme, []corev1.URIScheme{corev1.URISchemeHTTP, corev1.URISchemeHTTPS}))
	}
	for _, h := range a.HTTPHeaders {
		for _, msg := range utilvalidation.IsHTTPHeaderName(h.Name) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("httpHeaders"), a.HTTPHeaders, msg))
		}
	}
	return allErrs
}
