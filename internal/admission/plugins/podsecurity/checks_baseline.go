package podsecurity

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// baselineChecks are the controls of the baseline standard (which the
// restricted standard includes unless it replaces them).
func baselineChecks() []check {
	return []check{
		{id: "appArmorProfile", level: Baseline, revisions: []revision{{since: 0, fn: appArmor}}},
		{id: "capabilities_baseline", level: Baseline, revisions: []revision{{since: 0, fn: capabilitiesBaseline}}},
		{id: "hostNamespaces", level: Baseline, revisions: []revision{{since: 0, fn: hostNamespaces}}},
		{id: "hostPathVolumes", level: Baseline, revisions: []revision{{since: 0, fn: hostPathVolumes}}},
		{id: "hostPorts", level: Baseline, revisions: []revision{{since: 0, fn: hostPorts}}},
		{id: "hostProbesAndHostLifecycle", level: Baseline, revisions: []revision{{since: 34, fn: probeHosts}}},
		{id: "privileged", level: Baseline, revisions: []revision{{since: 0, fn: privileged}}},
		{id: "procMount", level: Baseline, revisions: []revision{
			{since: 0, fn: procMount},
			{since: 35, fn: unlessUserNamespaced(procMount)},
		}},
		{id: "seLinuxOptions", level: Baseline, revisions: []revision{
			{since: 0, fn: seLinux(seLinuxTypes("", "container_t", "container_init_t", "container_kvm_t"))},
			{since: 31, fn: seLinux(seLinuxTypes("", "container_t", "container_init_t", "container_kvm_t", "container_engine_t"))},
		}},
		{id: "seccompProfile_baseline", level: Baseline, revisions: []revision{
			{since: 0, fn: seccompAnnotations},
			{since: 19, fn: seccompBaseline},
		}},
		{id: "sysctls", level: Baseline, revisions: sysctlRevisions()},
		{id: "windowsHostProcess", level: Baseline, revisions: []revision{{since: 0, fn: windowsHostProcess}}},
	}
}

func unlessUserNamespaced(fn checkFn) checkFn {
	return func(meta *metav1.ObjectMeta, spec *corev1.PodSpec) finding {
		if userNamespaced(spec) {
			return finding{}
		}
		return fn(meta, spec)
	}
}

// setters joins who set a forbidden value: "pod and containers "a", "b"".
func setters(pod bool, containers []string, more ...string) []string {
	var out []string
	if pod {
		out = append(out, "pod")
	}
	if len(containers) > 0 {
		out = append(out, containersPhrase(containers))
	}
	return append(out, more...)
}

func appArmor(meta *metav1.ObjectMeta, spec *corev1.PodSpec) finding {
	allowed := func(t corev1.AppArmorProfileType) bool {
		return t == corev1.AppArmorProfileTypeRuntimeDefault || t == corev1.AppArmorProfileTypeLocalhost
	}
	values := map[string]bool{}
	badPod := false
	if sc := spec.SecurityContext; sc != nil && sc.AppArmorProfile != nil && !allowed(sc.AppArmorProfile.Type) {
		badPod = true
		values[string(sc.AppArmorProfile.Type)] = true
	}
	var bad []string
	visit(spec, func(c *corev1.Container) {
		if sc := c.SecurityContext; sc != nil && sc.AppArmorProfile != nil && !allowed(sc.AppArmorProfile.Type) {
			bad = append(bad, c.Name)
			values[string(sc.AppArmorProfile.Type)] = true
		}
	})
	list := sortedKeys(values)
	var annotations []string
	for k, v := range meta.Annotations {
		if !strings.HasPrefix(k, corev1.DeprecatedAppArmorBetaContainerAnnotationKeyPrefix) {
			continue
		}
		if v != "" && v != corev1.DeprecatedAppArmorBetaProfileRuntimeDefault && !strings.HasPrefix(v, corev1.DeprecatedAppArmorBetaProfileNamePrefix) {
			annotations = append(annotations, fmt.Sprintf("%s=%q", k, v))
		}
	}
	var extra []string
	if len(annotations) > 0 {
		slices.Sort(annotations)
		list = append(list, annotations...)
		extra = append(extra, plural("annotation", "annotations", len(annotations)))
	}
	who := setters(badPod, bad, extra...)
	if len(who) == 0 {
		return finding{}
	}
	return finding{
		reason: plural("forbidden AppArmor profile", "forbidden AppArmor profiles", len(list)),
		detail: fmt.Sprintf("%s must not set AppArmor profile type to %s", strings.Join(who, " and "), quoted(list)),
	}
}

var defaultCapabilities = map[corev1.Capability]bool{
	"AUDIT_WRITE": true, "CHOWN": true, "DAC_OVERRIDE": true, "FOWNER": true, "FSETID": true, "KILL": true,
	"MKNOD": true, "NET_BIND_SERVICE": true, "SETFCAP": true, "SETGID": true, "SETPCAP": true, "SETUID": true, "SYS_CHROOT": true,
}

func capabilitiesBaseline(_ *metav1.ObjectMeta, spec *corev1.PodSpec) finding {
	var bad []string
	caps := map[string]bool{}
	visit(spec, func(c *corev1.Container) {
		if c.SecurityContext == nil || c.SecurityContext.Capabilities == nil {
			return
		}
		ok := true
		for _, cp := range c.SecurityContext.Capabilities.Add {
			if !defaultCapabilities[cp] {
				ok = false
				caps[string(cp)] = true
			}
		}
		if !ok {
			bad = append(bad, c.Name)
		}
	})
	if len(bad) == 0 {
		return finding{}
	}
	return finding{"non-default capabilities", fmt.Sprintf("%s must not include %s in securityContext.capabilities.add", containersPhrase(bad), quoted(sortedKeys(caps)))}
}

func hostNamespaces(_ *metav1.ObjectMeta, spec *corev1.PodSpec) finding {
	var set []string
	if spec.HostNetwork {
		set = append(set, "hostNetwork=true")
	}
	if spec.HostPID {
		set = append(set, "hostPID=true")
	}
	if spec.HostIPC {
		set = append(set, "hostIPC=true")
	}
	if len(set) == 0 {
		return finding{}
	}
	return finding{"host namespaces", strings.Join(set, ", ")}
}

func hostPathVolumes(_ *metav1.ObjectMeta, spec *corev1.PodSpec) finding {
	var names []string
	for _, v := range spec.Volumes {
		if v.HostPath != nil {
			names = append(names, v.Name)
		}
	}
	if len(names) == 0 {
		return finding{}
	}
	return finding{"hostPath volumes", plural("volume", "volumes", len(names)) + " " + quoted(names)}
}

func hostPorts(_ *metav1.ObjectMeta, spec *corev1.PodSpec) finding {
	var bad []string
	ports := map[string]bool{}
	visit(spec, func(c *corev1.Container) {
		uses := false
		for _, p := range c.Ports {
			if p.HostPort != 0 {
				uses = true
				ports[strconv.Itoa(int(p.HostPort))] = true
			}
		}
		if uses {
			bad = append(bad, c.Name)
		}
	})
	if len(bad) == 0 {
		return finding{}
	}
	return finding{"hostPort", fmt.Sprintf("%s %s %s %s", containersPhrase(bad), plural("uses", "use", len(bad)),
		plural("hostPort", "hostPorts", len(ports)), strings.Join(sortedKeys(ports), ", "))}
}

func probeHosts(_ *metav1.ObjectMeta, spec *corev1.PodSpec) finding {
	bad, hosts := map[string]bool{}, map[string]bool{}
	add := func(c *corev1.Container, hs ...string) {
		for _, h := range hs {
			if h != "" {
				bad[c.Name], hosts[h] = true, true
			}
		}
	}
	visit(spec, func(c *corev1.Container) {
		for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
			if p == nil {
				continue
			}
			if p.HTTPGet != nil {
				add(c, p.HTTPGet.Host)
			}
			if p.TCPSocket != nil {
				add(c, p.TCPSocket.Host)
			}
		}
		if c.Lifecycle == nil {
			return
		}
		for _, h := range []*corev1.LifecycleHandler{c.Lifecycle.PostStart, c.Lifecycle.PreStop} {
			if h == nil {
				continue
			}
			if h.HTTPGet != nil {
				add(c, h.HTTPGet.Host)
			}
			if h.TCPSocket != nil {
				add(c, h.TCPSocket.Host)
			}
		}
	})
	if len(bad) == 0 {
		return finding{}
	}
	return finding{"probe or lifecycle host", fmt.Sprintf("%s %s %s %s", containersPhrase(sortedKeys(bad)), plural("uses", "use", len(bad)),
		plural("probe or lifecycle host", "probe or lifecycle hosts", len(hosts)), quoted(sortedKeys(hosts)))}
}

func privileged(_ *metav1.ObjectMeta, spec *corev1.PodSpec) finding {
	var bad []string
	visit(spec, func(c *corev1.Container) {
		if sc := c.SecurityContext; sc != nil && sc.Privileged != nil && *sc.Privileged {
			bad = append(bad, c.Name)
		}
	})
	if len(bad) == 0 {
		return finding{}
	}
	return finding{"privileged", containersPhrase(bad) + " must not set securityContext.privileged=true"}
}

func procMount(_ *metav1.ObjectMeta, spec *corev1.PodSpec) finding {
	var bad []string
	types := map[string]bool{}
	visit(spec, func(c *corev1.Container) {
		if sc := c.SecurityContext; sc != nil && sc.ProcMount != nil && *sc.ProcMount != corev1.DefaultProcMount {
			bad = append(bad, c.Name)
			types[string(*sc.ProcMount)] = true
		}
	})
	if len(bad) == 0 {
		return finding{}
	}
	return finding{"procMount", fmt.Sprintf("%s must not set securityContext.procMount to %s", containersPhrase(bad), quoted(sortedKeys(types)))}
}

func seLinuxTypes(types ...string) map[string]bool {
	out := map[string]bool{}
	for _, t := range types {
		out[t] = true
	}
	return out
}

func seLinux(allowed map[string]bool) checkFn {
	return func(_ *metav1.ObjectMeta, spec *corev1.PodSpec) finding {
		badTypes := map[string]bool{}
		var user, role bool
		ok := func(o *corev1.SELinuxOptions) bool {
			good := true
			if !allowed[o.Type] {
				good = false
				badTypes[o.Type] = true
			}
			if o.User != "" {
				good, user = false, true
			}
			if o.Role != "" {
				good, role = false, true
			}
			return good
		}
		badPod := spec.SecurityContext != nil && spec.SecurityContext.SELinuxOptions != nil && !ok(spec.SecurityContext.SELinuxOptions)
		var bad []string
		visit(spec, func(c *corev1.Container) {
			if c.SecurityContext != nil && c.SecurityContext.SELinuxOptions != nil && !ok(c.SecurityContext.SELinuxOptions) {
				bad = append(bad, c.Name)
			}
		})
		who := setters(badPod, bad)
		if len(who) == 0 {
			return finding{}
		}
		var what []string
		if len(badTypes) > 0 {
			what = append(what, plural("type", "types", len(badTypes))+" "+quoted(sortedKeys(badTypes)))
		}
		if user {
			what = append(what, "user may not be set")
		}
		if role {
			what = append(what, "role may not be set")
		}
		return finding{"seLinuxOptions", fmt.Sprintf("%s set forbidden securityContext.seLinuxOptions: %s", strings.Join(who, " and "), strings.Join(what, "; "))}
	}
}

const (
	seccompPodAnnotation             = "seccomp.security.alpha.kubernetes.io/pod"
	seccompContainerAnnotationPrefix = "container.seccomp.security.alpha.kubernetes.io/"
)

// seccompAnnotations is the rule before v1.19, on the alpha annotations.
func seccompAnnotations(meta *metav1.ObjectMeta, spec *corev1.PodSpec) finding {
	valid := func(v string) bool {
		return v == corev1.SeccompProfileRuntimeDefault || v == corev1.DeprecatedSeccompProfileDockerDefault ||
			strings.HasPrefix(v, corev1.SeccompLocalhostProfileNamePrefix)
	}
	bad := map[string]bool{}
	if v, ok := meta.Annotations[seccompPodAnnotation]; ok && !valid(v) {
		bad[fmt.Sprintf("%s=%q", seccompPodAnnotation, v)] = true
	}
	visit(spec, func(c *corev1.Container) {
		key := seccompContainerAnnotationPrefix + c.Name
		if v, ok := meta.Annotations[key]; ok && !valid(v) {
			bad[fmt.Sprintf("%s=%q", key, v)] = true
		}
	})
	if len(bad) == 0 {
		return finding{}
	}
	return finding{"seccompProfile", fmt.Sprintf("forbidden %s %s", plural("annotation", "annotations", len(bad)), strings.Join(sortedKeys(bad), ", "))}
}

func validSeccomp(t corev1.SeccompProfileType) bool {
	return t == corev1.SeccompProfileTypeLocalhost || t == corev1.SeccompProfileTypeRuntimeDefault
}

// seccompBaseline allows an unset profile but no Unconfined one.
func seccompBaseline(_ *metav1.ObjectMeta, spec *corev1.PodSpec) finding {
	values := map[string]bool{}
	badPod := false
	if sc := spec.SecurityContext; sc != nil && sc.SeccompProfile != nil && !validSeccomp(sc.SeccompProfile.Type) {
		badPod = true
		values[string(sc.SeccompProfile.Type)] = true
	}
	var bad []string
	visit(spec, func(c *corev1.Container) {
		if sc := c.SecurityContext; sc != nil && sc.SeccompProfile != nil && !validSeccomp(sc.SeccompProfile.Type) {
			bad = append(bad, c.Name)
			values[string(sc.SeccompProfile.Type)] = true
		}
	})
	who := setters(badPod, bad)
	if len(who) == 0 {
		return finding{}
	}
	return finding{"seccompProfile", fmt.Sprintf("%s must not set securityContext.seccompProfile.type to %s", strings.Join(who, " and "), quoted(sortedKeys(values)))}
}

// sysctlRevisions: the safe set grew with the versions.
func sysctlRevisions() []revision {
	safe := map[string]bool{}
	var revs []revision
	for _, step := range []struct {
		since int
		names []string
	}{
		{0, []string{"kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range", "net.ipv4.ip_unprivileged_port_start"}},
		{27, []string{"net.ipv4.ip_local_reserved_ports"}},
		{29, []string{"net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes"}},
		{32, []string{"net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"}},
		{37, []string{"net.ipv4.tcp_slow_start_after_idle", "net.ipv4.tcp_notsent_lowat"}},
	} {
		next := map[string]bool{}
		for k := range safe {
			next[k] = true
		}
		for _, n := range step.names {
			next[n] = true
		}
		safe = next
		revs = append(revs, revision{since: step.since, fn: sysctls(next)})
	}
	return revs
}

func sysctls(safe map[string]bool) checkFn {
	return func(_ *metav1.ObjectMeta, spec *corev1.PodSpec) finding {
		if spec.SecurityContext == nil {
			return finding{}
		}
		var bad []string
		for _, s := range spec.SecurityContext.Sysctls {
			if !safe[s.Name] {
				bad = append(bad, s.Name)
			}
		}
		if len(bad) == 0 {
			return finding{}
		}
		return finding{"forbidden sysctls", strings.Join(bad, ", ")}
	}
}

func windowsHostProcess(_ *metav1.ObjectMeta, spec *corev1.PodSpec) finding {
	hostProcess := func(o *corev1.WindowsSecurityContextOptions) bool {
		return o != nil && o.HostProcess != nil && *o.HostProcess
	}
	var bad []string
	visit(spec, func(c *corev1.Container) {
		if c.SecurityContext != nil && hostProcess(c.SecurityContext.WindowsOptions) {
			bad = append(bad, c.Name)
		}
	})
	badPod := spec.SecurityContext != nil && hostProcess(spec.SecurityContext.WindowsOptions)
	who := setters(badPod, bad)
	if len(who) == 0 {
		return finding{}
	}
	return finding{"hostProcess", strings.Join(who, " and ") + " must not set securityContext.windowsOptions.hostProcess=true"}
}
