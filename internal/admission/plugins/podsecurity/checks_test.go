package podsecurity

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// restrictedPod passes the restricted standard.
func restrictedPod(mut ...func(*corev1.Pod)) *corev1.Pod {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"},
		Spec: corev1.PodSpec{
			SecurityContext: &corev1.PodSecurityContext{
				RunAsNonRoot:   ptr.To(true),
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
			},
			Containers: []corev1.Container{{Name: "c", Image: "img", SecurityContext: &corev1.SecurityContext{
				AllowPrivilegeEscalation: ptr.To(false),
				Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			}}},
		},
	}
	for _, m := range mut {
		m(pod)
	}
	return pod
}

func sc(p *corev1.Pod) *corev1.SecurityContext { return p.Spec.Containers[0].SecurityContext }

// TestChecks pins upstream's reason and detail for each control.
func TestChecks(t *testing.T) {
	e := newEvaluator(allChecks())
	latest := func(l Level) LevelVersion { return LevelVersion{l, Latest} }
	tests := []struct {
		name string
		lv   LevelVersion
		pod  *corev1.Pod
		want string
	}{
		{"restricted pod passes", latest(Restricted), restrictedPod(), ""},
		{"bare pod under restricted", latest(Restricted), &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}},
			`allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), ` +
				`unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), ` +
				`runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), ` +
				`seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`},
		{"bare pod under baseline", latest(Baseline), &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}}, ""},
		{"privileged and host namespaces", latest(Baseline), restrictedPod(func(p *corev1.Pod) {
			sc(p).Privileged = ptr.To(true)
			p.Spec.HostNetwork, p.Spec.HostPID = true, true
		}), `host namespaces (hostNetwork=true, hostPID=true), privileged (container "c" must not set securityContext.privileged=true)`},
		{"host ports in two containers", latest(Baseline), restrictedPod(func(p *corev1.Pod) {
			p.Spec.Containers[0].Ports = []corev1.ContainerPort{{HostPort: 8080}, {HostPort: 80}}
			p.Spec.InitContainers = []corev1.Container{{Name: "i", Ports: []corev1.ContainerPort{{HostPort: 9090}}}}
		}), `hostPort (containers "i", "c" use hostPorts 80, 8080, 9090)`},
		{"capabilities baseline", latest(Baseline), restrictedPod(func(p *corev1.Pod) {
			sc(p).Capabilities.Add = []corev1.Capability{"SYS_ADMIN", "CHOWN", "NET_RAW"}
		}), `non-default capabilities (container "c" must not include "NET_RAW", "SYS_ADMIN" in securityContext.capabilities.add)`},
		{"capabilities restricted replace baseline", latest(Restricted), restrictedPod(func(p *corev1.Pod) {
			sc(p).Capabilities.Add = []corev1.Capability{"SYS_ADMIN", "NET_BIND_SERVICE"}
		}), `unrestricted capabilities (container "c" must not include "SYS_ADMIN" in securityContext.capabilities.add)`},
		{"hostPath under restricted is a restricted volume", latest(Restricted), restrictedPod(func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{{Name: "h", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/"}}}, {Name: "e", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
		}), `restricted volume types (volume "h" uses restricted volume type "hostPath")`},
		{"hostPath under baseline", latest(Baseline), restrictedPod(func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{{Name: "h", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/"}}}}
		}), `hostPath volumes (volume "h")`},
		{"seccomp unconfined", latest(Baseline), restrictedPod(func(p *corev1.Pod) {
			p.Spec.SecurityContext.SeccompProfile.Type = corev1.SeccompProfileTypeUnconfined
		}), `seccompProfile (pod must not set securityContext.seccompProfile.type to "Unconfined")`},
		{"runAsNonRoot false and runAsUser 0", latest(Restricted), restrictedPod(func(p *corev1.Pod) {
			sc(p).RunAsNonRoot = ptr.To(false)
			p.Spec.SecurityContext.RunAsUser = ptr.To[int64](0)
		}), `runAsNonRoot != true (container "c" must not set securityContext.runAsNonRoot=false), runAsUser=0 (pod must not set runAsUser=0)`},
		{"user namespace relaxes runAsNonRoot", latest(Restricted), restrictedPod(func(p *corev1.Pod) {
			p.Spec.HostUsers = ptr.To(false)
			p.Spec.SecurityContext.RunAsNonRoot = nil
			sc(p).RunAsUser = ptr.To[int64](0)
		}), ""},
		{"sysctls", latest(Baseline), restrictedPod(func(p *corev1.Pod) {
			p.Spec.SecurityContext.Sysctls = []corev1.Sysctl{{Name: "kernel.msgmax"}, {Name: "net.ipv4.tcp_notsent_lowat"}, {Name: "vm.swappiness"}}
		}), `forbidden sysctls (kernel.msgmax, vm.swappiness)`},
		{"sysctl added in 1.37 refused at 1.36", LevelVersion{Baseline, Version{36}}, restrictedPod(func(p *corev1.Pod) {
			p.Spec.SecurityContext.Sysctls = []corev1.Sysctl{{Name: "net.ipv4.tcp_notsent_lowat"}}
		}), `forbidden sysctls (net.ipv4.tcp_notsent_lowat)`},
		{"capabilities not required before 1.22", LevelVersion{Restricted, Version{21}}, restrictedPod(func(p *corev1.Pod) {
			sc(p).Capabilities = nil
		}), ""},
		{"seLinux", latest(Baseline), restrictedPod(func(p *corev1.Pod) {
			sc(p).SELinuxOptions = &corev1.SELinuxOptions{Type: "spc_t", User: "u"}
		}), `seLinuxOptions (container "c" set forbidden securityContext.seLinuxOptions: type "spc_t"; user may not be set)`},
		{"appArmor", latest(Baseline), restrictedPod(func(p *corev1.Pod) {
			p.Spec.SecurityContext.AppArmorProfile = &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeUnconfined}
			p.Annotations = map[string]string{"container.apparmor.security.beta.kubernetes.io/c": "unconfined"}
		}), `forbidden AppArmor profiles (pod and annotation must not set AppArmor profile type to "Unconfined", "container.apparmor.security.beta.kubernetes.io/c="unconfined"")`},
		{"probe host", latest(Baseline), restrictedPod(func(p *corev1.Pod) {
			p.Spec.Containers[0].LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Host: "10.0.0.1"}}}
		}), `probe or lifecycle host (container "c" uses probe or lifecycle host "10.0.0.1")`},
		{"probe host allowed before 1.34", LevelVersion{Baseline, Version{33}}, restrictedPod(func(p *corev1.Pod) {
			p.Spec.Containers[0].LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Host: "10.0.0.1"}}}
		}), ""},
		{"procMount", latest(Baseline), restrictedPod(func(p *corev1.Pod) {
			sc(p).ProcMount = ptr.To(corev1.UnmaskedProcMount)
		}), `procMount (container "c" must not set securityContext.procMount to "Unmasked")`},
		{"windows hostProcess", latest(Baseline), restrictedPod(func(p *corev1.Pod) {
			p.Spec.SecurityContext.WindowsOptions = &corev1.WindowsSecurityContextOptions{HostProcess: ptr.To(true)}
		}), `hostProcess (pod must not set securityContext.windowsOptions.hostProcess=true)`},
		{"ephemeral containers are checked", latest(Restricted), restrictedPod(func(p *corev1.Pod) {
			p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "dbg",
				SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false), Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}, Privileged: ptr.To(true)}}}}
		}), `privileged (container "dbg" must not set securityContext.privileged=true)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := detailed(e.evaluate(tt.lv, &tt.pod.ObjectMeta, &tt.pod.Spec))
			if got != tt.want {
				t.Errorf("\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestPolicyFromLabels(t *testing.T) {
	def := Policy{Enforce: LevelVersion{Privileged, Latest}, Audit: LevelVersion{Privileged, Latest}, Warn: LevelVersion{Privileged, Latest}}
	tests := []struct {
		name   string
		labels map[string]string
		want   Policy
		errs   int
	}{
		{"none", nil, def, 0},
		{"enforce carries warn", map[string]string{EnforceLevelLabel: "baseline", EnforceVersionLabel: "v1.30"},
			Policy{Enforce: LevelVersion{Baseline, Version{30}}, Audit: def.Audit, Warn: LevelVersion{Baseline, Version{30}}}, 0},
		{"own warn wins", map[string]string{EnforceLevelLabel: "restricted", WarnLevelLabel: "baseline"},
			Policy{Enforce: LevelVersion{Restricted, Latest}, Audit: def.Audit, Warn: LevelVersion{Baseline, Latest}}, 0},
		{"bad enforce fails closed", map[string]string{EnforceLevelLabel: "strict"},
			Policy{Enforce: LevelVersion{Restricted, Latest}, Audit: def.Audit, Warn: def.Warn}, 1},
		{"bad audit fails open", map[string]string{AuditLevelLabel: "strict", AuditVersionLabel: "1.2"},
			def, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, errs := policyFromLabels(tt.labels, def)
			if got != tt.want || len(errs) != tt.errs {
				t.Errorf("got %+v (%v), want %+v with %d errors", got, errs, tt.want, tt.errs)
			}
		})
	}
}

func TestParseConfig(t *testing.T) {
	cfg, err := ParseConfig([]byte(`apiVersion: pod-security.admission.config.k8s.io/v1
kind: PodSecurityConfiguration
defaults:
  enforce: baseline
  warn: restricted
  warn-version: v1.30
exemptions:
  usernames: [admin]
  namespaces: [kube-system]
`))
	if err != nil {
		t.Fatal(err)
	}
	want := Policy{Enforce: LevelVersion{Baseline, Latest}, Audit: LevelVersion{Privileged, Latest}, Warn: LevelVersion{Restricted, Version{30}}}
	if cfg.Defaults != want || cfg.Usernames[0] != "admin" || cfg.Namespaces[0] != "kube-system" {
		t.Errorf("got %+v", cfg)
	}
	for _, bad := range []string{
		"apiVersion: v1\nkind: ConfigMap\n",
		"apiVersion: pod-security.admission.config.k8s.io/v1\nkind: PodSecurityConfiguration\ndefaults:\n  enforce: strict\n",
		"apiVersion: pod-security.admission.config.k8s.io/v1\nkind: PodSecurityConfiguration\nextra: 1\n",
		"apiVersion: pod-security.admission.config.k8s.io/v1\nkind: PodSecurityConfiguration\nexemptions:\n  namespaces: [a, a]\n",
	} {
		if _, err := ParseConfig([]byte(bad)); err == nil {
			t.Errorf("accepted:\n%s", bad)
		}
	}
}
