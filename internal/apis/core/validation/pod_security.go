package validation

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Sysctl names as upstream accepts them: dot- or slash-separated segments
// (slashes for names like net/ipv4/conf/eth0.100/rp_filter).
const (
	sysctlSegmentFmt      = "[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
	sysctlContainSlashFmt = "(" + sysctlSegmentFmt + "[\\./])*" + sysctlSegmentFmt
	sysctlMaxLength       = 253
)

var sysctlNameRegexp = regexp.MustCompile("^" + sysctlContainSlashFmt + "$")

// validatePodSecurityContext checks the pod-level security context with
// upstream's paths: user and group ids, fsGroupChangePolicy, seccomp,
// and sysctls (which the host namespaces the pod shares rule out).
func validatePodSecurityContext(spec *corev1.PodSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if spec.ShareProcessNamespace != nil && *spec.ShareProcessNamespace && spec.HostPID {
		// Upstream's internal type keeps both under securityContext.
		allErrs = append(allErrs, field.Invalid(fldPath.Child("shareProcessNamespace"), *spec.ShareProcessNamespace,
			"ShareProcessNamespace and HostPID cannot both be enabled"))
	}
	sc := spec.SecurityContext
	if sc == nil {
		return allErrs
	}
	invalid := func(path *field.Path, v any, msgs []string) {
		for _, msg := range msgs {
			allErrs = append(allErrs, field.Invalid(path, v, msg))
		}
	}
	if sc.FSGroup != nil {
		invalid(fldPath.Child("fsGroup"), *sc.FSGroup, utilvalidation.IsValidGroupID(*sc.FSGroup))
	}
	if sc.RunAsUser != nil {
		invalid(fldPath.Child("runAsUser"), *sc.RunAsUser, utilvalidation.IsValidUserID(*sc.RunAsUser))
	}
	if sc.RunAsGroup != nil {
		invalid(fldPath.Child("runAsGroup"), *sc.RunAsGroup, utilvalidation.IsValidGroupID(*sc.RunAsGroup))
	}
	for i, gid := range sc.SupplementalGroups {
		invalid(fldPath.Child("supplementalGroups").Index(i), gid, utilvalidation.IsValidGroupID(gid))
	}
	if p := sc.FSGroupChangePolicy; p != nil {
		switch *p {
		case corev1.FSGroupChangeOnRootMismatch, corev1.FSGroupChangeAlways:
		default:
			allErrs = append(allErrs, field.NotSupported(fldPath.Child("fsGroupChangePolicy"), *p,
				[]string{string(corev1.FSGroupChangeAlways), string(corev1.FSGroupChangeOnRootMismatch)}))
		}
	}
	allErrs = append(allErrs, validateSeccompProfile(sc.SeccompProfile, fldPath.Child("seccompProfile"))...)
	allErrs = append(allErrs, validateSysctls(spec, fldPath.Child("sysctls"))...)
	return allErrs
}

func validateSysctls(spec *corev1.PodSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	seen := map[string]bool{}
	for i, s := range spec.SecurityContext.Sysctls {
		namePath := fldPath.Index(i).Child("name")
		switch {
		case s.Name == "":
			allErrs = append(allErrs, field.Required(namePath, ""))
		case len(s.Name) > sysctlMaxLength || !sysctlNameRegexp.MatchString(s.Name):
			allErrs = append(allErrs, field.Invalid(namePath, s.Name,
				fmt.Sprintf("must have at most %d characters and match regex %s", sysctlMaxLength, sysctlNameRegexp)))
		case seen[s.Name]:
			allErrs = append(allErrs, field.Duplicate(namePath, s.Name))
		}
		seen[s.Name] = true
		switch ns := sysctlNamespace(s.Name); {
		case spec.HostNetwork && ns == "net":
			allErrs = append(allErrs, field.Invalid(namePath, s.Name, "may not be specified when 'hostNetwork' is true"))
		case spec.HostIPC && ns == "ipc":
			allErrs = append(allErrs, field.Invalid(namePath, s.Name, "may not be specified when 'hostIPC' is true"))
		}
	}
	return allErrs
}

// sysctlNamespace is the kernel namespace a sysctl belongs to ("net",
// "ipc", or "" when not known to be one the pod could share with the
// host), after normalising a slash-separated name to dots.
func sysctlNamespace(name string) string {
	if i := strings.IndexAny(name, "./"); i >= 0 && name[i] == '/' {
		name = strings.Map(func(r rune) rune {
			switch r {
			case '.':
				return '/'
			case '/':
				return '.'
			}
			return r
		}, name)
	}
	switch name {
	case "kernel.sem", "kernel.shm", "kernel.shmall", "kernel.shmmax", "kernel.shmmni", "kernel.shm_rmid_forced",
		"kernel.msg", "kernel.msgmax", "kernel.msgmnb", "kernel.msgmni":
		return "ipc"
	}
	switch {
	case strings.HasPrefix(name, "net."):
		return "net"
	case strings.HasPrefix(name, "fs.mqueue."):
		return "ipc"
	}
	return ""
}

// validateSeccompProfile: a known type; a Localhost profile names a
// relative file, the other types name none.
func validateSeccompProfile(p *corev1.SeccompProfile, fldPath *field.Path) field.ErrorList {
	if p == nil {
		return nil
	}
	var allErrs field.ErrorList
	switch p.Type {
	case corev1.SeccompProfileTypeLocalhost, corev1.SeccompProfileTypeRuntimeDefault, corev1.SeccompProfileTypeUnconfined:
	case "":
		allErrs = append(allErrs, field.Required(fldPath.Child("type"), "type is required when seccompProfile is set"))
	default:
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("type"), p.Type, []corev1.SeccompProfileType{
			corev1.SeccompProfileTypeLocalhost, corev1.SeccompProfileTypeRuntimeDefault, corev1.SeccompProfileTypeUnconfined}))
	}
	lp := fldPath.Child("localhostProfile")
	switch {
	case p.Type == corev1.SeccompProfileTypeLocalhost && p.LocalhostProfile == nil:
		allErrs = append(allErrs, field.Required(lp, "must be set when seccomp type is Localhost"))
	case p.Type == corev1.SeccompProfileTypeLocalhost:
		if path.IsAbs(*p.LocalhostProfile) {
			allErrs = append(allErrs, field.Invalid(lp, *p.LocalhostProfile, "must be a relative path"))
		}
		if podHasBacksteps(*p.LocalhostProfile) {
			allErrs = append(allErrs, field.Invalid(lp, *p.LocalhostProfile, "must not contain '..'"))
		}
	case p.LocalhostProfile != nil:
		allErrs = append(allErrs, field.Invalid(lp, p, "can only be set when seccomp type is Localhost"))
	}
	return allErrs
}

// validateContainerSecurityContext checks a container's security context
// as upstream: ids, privilege escalation against privileged and
// CAP_SYS_ADMIN, procMount and seccomp.
func validateContainerSecurityContext(sc *corev1.SecurityContext, fldPath *field.Path) field.ErrorList {
	if sc == nil {
		return nil
	}
	var allErrs field.ErrorList
	if sc.RunAsUser != nil {
		for _, msg := range utilvalidation.IsValidUserID(*sc.RunAsUser) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("runAsUser"), *sc.RunAsUser, msg))
		}
	}
	if sc.RunAsGroup != nil {
		for _, msg := range utilvalidation.IsValidGroupID(*sc.RunAsGroup) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("runAsGroup"), *sc.RunAsGroup, msg))
		}
	}
	if sc.ProcMount != nil {
		switch *sc.ProcMount {
		case corev1.DefaultProcMount, corev1.UnmaskedProcMount:
		default:
			allErrs = append(allErrs, field.NotSupported(fldPath.Child("procMount"), *sc.ProcMount,
				[]corev1.ProcMountType{corev1.DefaultProcMount, corev1.UnmaskedProcMount}))
		}
	}
	if sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation {
		if sc.Privileged != nil && *sc.Privileged {
			allErrs = append(allErrs, field.Invalid(fldPath, sc, "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"))
		}
		if sc.Capabilities != nil {
			for _, c := range sc.Capabilities.Add {
				if c == "CAP_SYS_ADMIN" {
					allErrs = append(allErrs, field.Invalid(fldPath, sc, "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"))
					break
				}
			}
		}
	}
	allErrs = append(allErrs, validateSeccompProfile(sc.SeccompProfile, fldPath.Child("seccompProfile"))...)
	return allErrs
}
