package validation

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// TestValidatePodUpstreamRules pins rules kube-apiserver applies to pods
// that kapi once let through: security contexts and sysctls, projected
// podCertificate and clusterTrustBundle sources, host aliases, DNS config
// and topology spread constraints — each with upstream's path and words.
func TestValidatePodUpstreamRules(t *testing.T) {
	sysctls := func(p *corev1.Pod, s ...corev1.Sysctl) { p.Spec.SecurityContext.Sysctls = s }
	projected := func(p *corev1.Pod, src corev1.VolumeProjection) {
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "proj", VolumeSource: corev1.VolumeSource{
			Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{src}}}})
	}
	podCert := func(signer string, secs *int32) corev1.VolumeProjection {
		return corev1.VolumeProjection{PodCertificate: &corev1.PodCertificateProjection{
			SignerName: signer, KeyType: "ED25519", MaxExpirationSeconds: secs, CredentialBundlePath: "creds.pem"}}
	}
	tests := []podCase{
		{"valid sysctls", func(p *corev1.Pod) {
			sysctls(p, corev1.Sysctl{Name: "net.ipv4.ip_local_port_range", Value: "1024 65535"},
				corev1.Sysctl{Name: "net/ipv4/conf/eth0.100/rp_filter", Value: "1"}, corev1.Sysctl{Name: "kernel.shm_rmid_forced", Value: "0"})
		}, nil, ""},
		{"sysctl name", func(p *corev1.Pod) { sysctls(p, corev1.Sysctl{Name: "Net.IPv4..x", Value: "1"}) },
			[]string{"spec.securityContext.sysctls[0].name: Invalid value"}, "must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$"},
		{"sysctl name required", func(p *corev1.Pod) { sysctls(p, corev1.Sysctl{Value: "1"}) },
			[]string{"spec.securityContext.sysctls[0].name: Required value"}, ""},
		{"sysctl duplicate", func(p *corev1.Pod) {
			sysctls(p, corev1.Sysctl{Name: "net.core.somaxconn", Value: "1"}, corev1.Sysctl{Name: "net.core.somaxconn", Value: "2"})
		}, []string{"spec.securityContext.sysctls[1].name: Duplicate value"}, ""},
		{"net sysctl on the host network", func(p *corev1.Pod) {
			p.Spec.HostNetwork = true
			p.Spec.Containers[0].Ports[0].HostPort = 80
			sysctls(p, corev1.Sysctl{Name: "net.core.somaxconn", Value: "1"})
		}, []string{"spec.securityContext.sysctls[0].name: Invalid value"}, "may not be specified when 'hostNetwork' is true"},
		{"ipc sysctl with host IPC", func(p *corev1.Pod) {
			p.Spec.HostIPC = true
			sysctls(p, corev1.Sysctl{Name: "kernel.shmmax", Value: "1"})
		}, []string{"spec.securityContext.sysctls[0].name: Invalid value"}, "may not be specified when 'hostIPC' is true"},
		{"negative ids", func(p *corev1.Pod) {
			sc := p.Spec.SecurityContext
			sc.RunAsUser, sc.RunAsGroup, sc.FSGroup, sc.SupplementalGroups = ptr.To[int64](-1), ptr.To[int64](-1), ptr.To[int64](-2), []int64{5, -3}
		}, []string{"spec.securityContext.fsGroup: Invalid value", "spec.securityContext.runAsGroup: Invalid value",
			"spec.securityContext.runAsUser: Invalid value", "spec.securityContext.supplementalGroups[1]: Invalid value"},
			"must be between 0 and 2147483647, inclusive"},
		{"fsGroupChangePolicy", func(p *corev1.Pod) {
			p.Spec.SecurityContext.FSGroupChangePolicy = ptr.To(corev1.PodFSGroupChangePolicy("Sometimes"))
		}, []string{"spec.securityContext.fsGroupChangePolicy: Unsupported value"}, ""},
		{"seccomp Localhost without a profile", func(p *corev1.Pod) {
			p.Spec.SecurityContext.SeccompProfile = &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeLocalhost}
		}, []string{"spec.securityContext.seccompProfile.localhostProfile: Required value"}, ""},
		{"seccomp type required", func(p *corev1.Pod) {
			p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{SeccompProfile: &corev1.SeccompProfile{LocalhostProfile: ptr.To("p.json")}}
		}, []string{"spec.containers[0].securityContext.seccompProfile.localhostProfile: Invalid value",
			"spec.containers[0].securityContext.seccompProfile.type: Required value"}, "type is required when seccompProfile is set"},
		{"shareProcessNamespace with hostPID", func(p *corev1.Pod) {
			p.Spec.ShareProcessNamespace, p.Spec.HostPID = ptr.To(true), true
		}, []string{"spec.securityContext.shareProcessNamespace: Invalid value"}, "ShareProcessNamespace and HostPID cannot both be enabled"},
		{"container privileged without escalation", func(p *corev1.Pod) {
			p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(true), AllowPrivilegeEscalation: ptr.To(false)}
		}, []string{"spec.containers[0].securityContext: Invalid value"}, "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"},
		{"container runAsUser", func(p *corev1.Pod) {
			p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{RunAsUser: ptr.To[int64](-5)}
		}, []string{"spec.containers[0].securityContext.runAsUser: Invalid value"}, ""},
		{"podCertificate within range", func(p *corev1.Pod) { projected(p, podCert("example.com/signer", ptr.To[int32](7200))) }, nil, ""},
		{"podCertificate too short", func(p *corev1.Pod) { projected(p, podCert("example.com/signer", ptr.To[int32](3599))) },
			[]string{"spec.volumes[1].projected.sources[0].podCertificate.maxExpirationSeconds: Invalid value"}, "if provided, maxExpirationSeconds must be >= 3600"},
		{"podCertificate beyond 91 days", func(p *corev1.Pod) { projected(p, podCert("example.com/signer", ptr.To[int32](91*86400+1))) },
			[]string{"spec.volumes[1].projected.sources[0].podCertificate.maxExpirationSeconds: Invalid value"}, "if provided, maxExpirationSeconds must be <= 7862400"},
		{"podCertificate kubernetes.io beyond a day", func(p *corev1.Pod) {
			projected(p, podCert("kubernetes.io/kube-apiserver-client-pod", ptr.To[int32](86401)))
		},
			[]string{"spec.volumes[1].projected.sources[0].podCertificate.maxExpirationSeconds: Invalid value"}, "if provided, maxExpirationSeconds must be <= 86400"},
		{"podCertificate key type and paths", func(p *corev1.Pod) {
			projected(p, corev1.VolumeProjection{PodCertificate: &corev1.PodCertificateProjection{SignerName: "example.com/s", KeyType: "DSA"}})
		}, []string{"spec.volumes[1].projected.sources[0].podCertificate.keyType: Unsupported value",
			"spec.volumes[1].projected.sources[0].podCertificate: Required value"}, ""},
		{"clusterTrustBundle needs name or signer", func(p *corev1.Pod) {
			projected(p, corev1.VolumeProjection{ClusterTrustBundle: &corev1.ClusterTrustBundleProjection{Path: "ca.pem"}})
		}, []string{"spec.volumes[1].projected.sources[0].clusterTrustBundle: Required value"}, "either name or signerName must be specified"},
		{"projected duplicate paths", func(p *corev1.Pod) {
			p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "proj", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
				Sources: []corev1.VolumeProjection{
					{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "a"}, Items: []corev1.KeyToPath{{Key: "k", Path: "f"}}}},
					{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "b"}, Items: []corev1.KeyToPath{{Key: "k", Path: "f"}}}},
				}}}})
		}, []string{"spec.volumes[1].projected: Invalid value"}, "conflicting duplicate paths"},
		{"empty projected source is allowed", func(p *corev1.Pod) { projected(p, corev1.VolumeProjection{}) }, nil, ""},
		{"host alias", func(p *corev1.Pod) {
			p.Spec.HostAliases = []corev1.HostAlias{{IP: "999.1.1.1", Hostnames: []string{"ok.example", "Not_OK"}}}
		}, []string{"spec.hostAliases[0].hostnames[1]: Invalid value", "spec.hostAliases[0].ip: Invalid value"}, ""},
		{"dnsPolicy None without config", func(p *corev1.Pod) { p.Spec.DNSPolicy = corev1.DNSNone },
			[]string{"spec.dnsConfig: Required value"}, "must provide `dnsConfig` when `dnsPolicy` is None"},
		{"dns config", func(p *corev1.Pod) {
			p.Spec.DNSConfig = &corev1.PodDNSConfig{Nameservers: []string{"1.1.1.1", "8.8.8.8", "9.9.9.9", "bad"},
				Searches: []string{"ok.example.", "bad search"}, Options: []corev1.PodDNSConfigOption{{Value: ptr.To("2")}}}
		}, []string{"spec.dnsConfig.nameservers: Invalid value", "spec.dnsConfig.nameservers[3]: Invalid value",
			"spec.dnsConfig.options[0]: Required value", "spec.dnsConfig.searches[1]: Invalid value"}, "must not have more than 3 nameservers"},
		{"topology spread", func(p *corev1.Pod) {
			p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{
				{MaxSkew: 0, TopologyKey: "zone", WhenUnsatisfiable: corev1.ScheduleAnyway, MinDomains: ptr.To[int32](2)},
				{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: corev1.ScheduleAnyway, LabelSelector: &metav1.LabelSelector{}},
				{MaxSkew: 1, WhenUnsatisfiable: "Maybe"},
			}
		}, []string{"spec.topologySpreadConstraints[0].maxSkew: Invalid value", "spec.topologySpreadConstraints[0].minDomains: Invalid value",
			"spec.topologySpreadConstraints[1]: Duplicate value", "spec.topologySpreadConstraints[2].topologyKey: Required value",
			"spec.topologySpreadConstraints[2].whenUnsatisfiable: Unsupported value"}, "must be greater than zero"},
		{"node affinity", func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
					MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn}},
				}}},
				PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{Weight: 101}},
			}}
		}, []string{"spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value",
			"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: Required value"},
			"must be specified when `operator` is 'In' or 'NotIn'"},
		{"node affinity without terms", func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{}}}
		}, []string{"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value"}, ""},
		{"pod anti-affinity topology key", func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{LabelSelector: &metav1.LabelSelector{}}}}}
		}, []string{"spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Required value"}, "can not be empty"},
		{"os name", func(p *corev1.Pod) { p.Spec.OS = &corev1.PodOS{Name: "plan9"} },
			[]string{"spec.os.name: Unsupported value"}, ""},
		{"recursive read-only needs readOnly", func(p *corev1.Pod) {
			p.Spec.Containers[0].VolumeMounts[0].RecursiveReadOnly = ptr.To(corev1.RecursiveReadOnlyEnabled)
		}, []string{"spec.containers[0].volumeMounts[0].recursiveReadOnly: Forbidden"}, "may only be specified when readOnly is true"},
	}
	runPodCases(t, tests)
}
