package podsecurity

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// restrictedChecks are the controls only the restricted standard has;
// some replace a baseline control with a stricter one.
func restrictedChecks() []check {
	return []check{
		{id: "allowPrivilegeEscalation", level: Restricted, revisions: []revision{
			{since: 8, fn: allowPrivilegeEscalation},
			{since: 25, fn: unlessWindows(allowPrivilegeEscalation)},
		}},
		{id: "capabilities_restricted", level: Restricted, revisions: []revision{
			{since: 22, fn: capabilitiesRestricted, overrides: []string{"capabilities_baseline"}},
			{since: 25, fn: unlessWindows(capabilitiesRestricted), overrides: []string{"capabilities_baseline"}},
		}},
		{id: "procMount_restricted", level: Restricted, revisions: []revision{
			{since: 35, fn: procMount, overrides: []string{"procMount"}},
		}},
		{id: "restrictedVolumes", level: Restricted, revisions: []revision{
			{since: 0, fn: restrictedVolumes, overrides: []string{"hostPathVolumes"}},
		}},
		{id: "runAsNonRoot", level: Restricted, revisions: []revision{
			{since: 0, fn: runAsNonRoot},
			{since: 35, fn: unlessUserNamespaced(runAsNonRoot)},
		}},
		{id: "runAsUser", level: Restricted, revisions: []revision{
			{since: 23, fn: runAsUser},
			{since: 35, fn: unlessUserNamespaced(runAsUser)},
		}},
		{id: "seccompProfile_restricted", level: Restricted, revisions: []revision{
			{since: 19, fn: seccompRestricted, overrides: []string{"seccompProfile_baseline"}},
			{since: 25, fn: unlessWindows(seccompRestricted), overrides: []string{"seccompProfile_baseline"}},
		}},
	}
}

func unlessWindows(fn checkFn) checkFn {
	return func(meta *metav1.ObjectMeta, spec *corev1.PodSpec) finding {
		if windows(spec) {
			return finding{}
		}
		return fn(meta, spec)
	}
}

func allowPrivilegeEscalation(_ *metav1.ObjectMeta, spec *corev1.PodSpec) finding {
	var bad []string
	visit(spec, func(c *corev1.Container) {
		if sc := c.SecurityContext; sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
			bad = append(bad, c.Name)
		}
	})
	if len(bad) == 0 {
		return finding{}
	}
	return finding{"allowPrivilegeEscalation != false", containersPhrase(bad) + " must set securityContext.allowPrivilegeEscalation=false"}
}

func capabilitiesRestricted(_ *metav1.ObjectMeta, spec *corev1.PodSpec) finding {
	var noDrop, adding []string
	caps := map[string]bool{}
	visit(spec, func(c *corev1.Container) {
		if c.SecurityContext == nil || c.SecurityContext.Capabilities == nil {
			noDrop = append(noDrop, c.Name)
			return
		}
		dropsAll := false
		for _, cp := range c.SecurityContext.Capabilities.Drop {
			dropsAll = dropsAll || cp == "ALL"
		}
		if !dropsAll {
			noDrop = append(noDrop, c.Name)
		}
		adds := false
		for _, cp := range c.SecurityContext.Capabilities.Add {
			if cp != "NET_BIND_SERVICE" {
				adds = true
				caps[string(cp)] = true
			}
		}
		if adds {
			adding = append(adding, c.Name)
		}
	})
	var details []string
	if len(noDrop) > 0 {
		details = append(details, containersPhrase(noDrop)+` must set securityContext.capabilities.drop=["ALL"]`)
	}
	if len(adding) > 0 {
		details = append(details, fmt.Sprintf("%s must not include %s in securityContext.capabilities.add", containersPhrase(adding), quoted(sortedKeys(caps))))
	}
	if len(details) == 0 {
		return finding{}
	}
	return finding{"unrestricted capabilities", strings.Join(details, "; ")}
}

// volumeType names a volume's source as the restricted standard reports
// it, or "" for the allowed kinds.
func volumeType(v *corev1.Volume) string {
	s := &v.VolumeSource
	switch {
	case s.ConfigMap != nil, s.CSI != nil, s.DownwardAPI != nil, s.EmptyDir != nil, s.Ephemeral != nil,
		s.Image != nil, s.PersistentVolumeClaim != nil, s.Projected != nil, s.Secret != nil:
		return ""
	}
	for _, t := range []struct {
		set  bool
		name string
	}{
		{s.HostPath != nil, "hostPath"}, {s.GCEPersistentDisk != nil, "gcePersistentDisk"},
		{s.AWSElasticBlockStore != nil, "awsElasticBlockStore"}, {s.GitRepo != nil, "gitRepo"},
		{s.NFS != nil, "nfs"}, {s.ISCSI != nil, "iscsi"}, {s.Glusterfs != nil, "glusterfs"},
		{s.RBD != nil, "rbd"}, {s.FlexVolume != nil, "flexVolume"}, {s.Cinder != nil, "cinder"},
		{s.CephFS != nil, "cephfs"}, {s.Flocker != nil, "flocker"}, {s.FC != nil, "fc"},
		{s.AzureFile != nil, "azureFile"}, {s.VsphereVolume != nil, "vsphereVolume"},
		{s.Quobyte != nil, "quobyte"}, {s.AzureDisk != nil, "azureDisk"},
		{s.PhotonPersistentDisk != nil, "photonPersistentDisk"}, {s.PortworxVolume != nil, "portworxVolume"},
		{s.ScaleIO != nil, "scaleIO"}, {s.StorageOS != nil, "storageos"},
	} {
		if t.set {
			return t.name
		}
	}
	return "unknown"
}

func restrictedVolumes(_ *metav1.ObjectMeta, spec *corev1.PodSpec) finding {
	var bad []string
	types := map[string]bool{}
	for i := range spec.Volumes {
		if t := volumeType(&spec.Volumes[i]); t != "" {
			bad = append(bad, spec.Volumes[i].Name)
			types[t] = true
		}
	}
	if len(bad) == 0 {
		return finding{}
	}
	return finding{"restricted volume types", fmt.Sprintf("%s %s %s %s %s", plural("volume", "volumes", len(bad)), quoted(bad),
		plural("uses", "use", len(bad)), plural("restricted volume type", "restricted volume types", len(types)), quoted(sortedKeys(types)))}
}

func runAsNonRoot(_ *metav1.ObjectMeta, spec *corev1.PodSpec) finding {
	badPod, podTrue := false, false
	if sc := spec.SecurityContext; sc != nil && sc.RunAsNonRoot != nil {
		badPod, podTrue = !*sc.RunAsNonRoot, *sc.RunAsNonRoot
	}
	var explicit, implicit []string
	visit(spec, func(c *corev1.Container) {
		if sc := c.SecurityContext; sc != nil && sc.RunAsNonRoot != nil {
			if !*sc.RunAsNonRoot {
				explicit = append(explicit, c.Name)
			}
		} else if !podTrue {
			implicit = append(implicit, c.Name)
		}
	})
	if who := setters(badPod, explicit); len(who) > 0 {
		return finding{"runAsNonRoot != true", strings.Join(who, " and ") + " must not set securityContext.runAsNonRoot=false"}
	}
	if len(implicit) > 0 {
		return finding{"runAsNonRoot != true", "pod or " + containersPhrase(implicit) + " must set securityContext.runAsNonRoot=true"}
	}
	return finding{}
}

func runAsUser(_ *metav1.ObjectMeta, spec *corev1.PodSpec) finding {
	badPod := spec.SecurityContext != nil && spec.SecurityContext.RunAsUser != nil && *spec.SecurityContext.RunAsUser == 0
	var bad []string
	visit(spec, func(c *corev1.Container) {
		if sc := c.SecurityContext; sc != nil && sc.RunAsUser != nil && *sc.RunAsUser == 0 {
			bad = append(bad, c.Name)
		}
	})
	if who := setters(badPod, bad); len(who) > 0 {
		return finding{"runAsUser=0", strings.Join(who, " and ") + " must not set runAsUser=0"}
	}
	return finding{}
}

// seccompRestricted requires RuntimeDefault or Localhost, on the pod or
// on every container.
func seccompRestricted(_ *metav1.ObjectMeta, spec *corev1.PodSpec) finding {
	values := map[string]bool{}
	badPod, podSet := false, false
	if sc := spec.SecurityContext; sc != nil && sc.SeccompProfile != nil {
		if validSeccomp(sc.SeccompProfile.Type) {
			podSet = true
		} else {
			badPod = true
			values[string(sc.SeccompProfile.Type)] = true
		}
	}
	var explicit, implicit []string
	visit(spec, func(c *corev1.Container) {
		if sc := c.SecurityContext; sc != nil && sc.SeccompProfile != nil {
			if !validSeccomp(sc.SeccompProfile.Type) {
				explicit = append(explicit, c.Name)
				values[string(sc.SeccompProfile.Type)] = true
			}
		} else if !podSet {
			implicit = append(implicit, c.Name)
		}
	})
	if who := setters(badPod, explicit); len(who) > 0 {
		return finding{"seccompProfile", fmt.Sprintf("%s must not set securityContext.seccompProfile.type to %s", strings.Join(who, " and "), quoted(sortedKeys(values)))}
	}
	if len(implicit) > 0 {
		return finding{"seccompProfile", "pod or " + containersPhrase(implicit) + ` must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`}
	}
	return finding{}
}
