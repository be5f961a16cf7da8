package v1

import (
	"regexp"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// SetDefaultsPodSpec fills the defaults of a pod spec, shared by pods and
// every pod template (podtemplates, replication controllers, deployments,
// jobs, ...): the spec's own fields, then those of its volumes and
// containers, as upstream's generated defaulter walks them.
func SetDefaultsPodSpec(spec *corev1.PodSpec) {
	if spec.DNSPolicy == "" {
		spec.DNSPolicy = corev1.DNSClusterFirst
	}
	if spec.RestartPolicy == "" {
		spec.RestartPolicy = corev1.RestartPolicyAlways
	}
	if spec.SecurityContext == nil {
		spec.SecurityContext = &corev1.PodSecurityContext{}
	}
	if spec.TerminationGracePeriodSeconds == nil {
		spec.TerminationGracePeriodSeconds = ptr.To[int64](corev1.DefaultTerminationGracePeriodSeconds)
	}
	if spec.SchedulerName == "" {
		spec.SchedulerName = corev1.DefaultSchedulerName
	}
	for i := range spec.Volumes {
		podDefaultsVolume(&spec.Volumes[i])
	}
	for i := range spec.InitContainers {
		podDefaultsContainer(&spec.InitContainers[i])
	}
	for i := range spec.Containers {
		podDefaultsContainer(&spec.Containers[i])
	}
	for i := range spec.EphemeralContainers {
		podDefaultsContainer((*corev1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon))
	}
	podDefaultsResourceList(spec.Overhead)
	if spec.Resources != nil {
		podDefaultsResourceList(spec.Resources.Limits)
		podDefaultsResourceList(spec.Resources.Requests)
	}
}

// SetDefaultsPodTemplateSpec fills the defaults of a pod template. A
// template gets the spec defaults only: the pod-only ones (requests from
// limits, enableServiceLinks) materialize when a pod is created from it.
func SetDefaultsPodTemplateSpec(template *corev1.PodTemplateSpec) {
	SetDefaultsPodSpec(&template.Spec)
}

// SetDefaultsPod fills the defaults of a pod: the ones only pods get,
// then its spec's.
func SetDefaultsPod(pod *corev1.Pod) {
	podRequestsFromLimits(pod.Spec.Containers)
	podRequestsFromLimits(pod.Spec.InitContainers)
	if pod.Spec.EnableServiceLinks == nil {
		pod.Spec.EnableServiceLinks = ptr.To(corev1.DefaultEnableServiceLinks)
	}
	if pod.Spec.HostNetwork {
		podHostNetworkPorts(pod.Spec.Containers)
		podHostNetworkPorts(pod.Spec.InitContainers)
	}
	SetDefaultsPodSpec(&pod.Spec)
}

// SetDefaultsPodTemplate fills the defaults of a PodTemplate object.
func SetDefaultsPodTemplate(t *corev1.PodTemplate) {
	SetDefaultsPodTemplateSpec(&t.Template)
}

// podRequestsFromLimits sets each container's missing requests to its
// limits, so a container with limits only is Guaranteed.
func podRequestsFromLimits(containers []corev1.Container) {
	for i := range containers {
		res := &containers[i].Resources
		if res.Limits == nil {
			continue
		}
		if res.Requests == nil {
			res.Requests = make(corev1.ResourceList, len(res.Limits))
		}
		for name, limit := range res.Limits {
			if _, ok := res.Requests[name]; !ok {
				res.Requests[name] = limit.DeepCopy()
			}
		}
	}
}

// podHostNetworkPorts makes hostPort equal containerPort for pods on the
// host network, where the two cannot differ.
func podHostNetworkPorts(containers []corev1.Container) {
	for i := range containers {
		for j := range containers[i].Ports {
			if containers[i].Ports[j].HostPort == 0 {
				containers[i].Ports[j].HostPort = containers[i].Ports[j].ContainerPort
			}
		}
	}
}

// podDefaultsContainer defaults one container of any kind.
func podDefaultsContainer(c *corev1.Container) {
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = DefaultImagePullPolicy(c.Image)
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = corev1.TerminationMessagePathDefault
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	}
	for i := range c.Ports {
		if c.Ports[i].Protocol == "" {
			c.Ports[i].Protocol = corev1.ProtocolTCP
		}
	}
	for i := range c.Env {
		if from := c.Env[i].ValueFrom; from != nil {
			if from.FieldRef != nil {
				podDefaultsFieldRef(from.FieldRef)
			}
			if from.FileKeyRef != nil && from.FileKeyRef.Optional == nil {
				from.FileKeyRef.Optional = ptr.To(false)
			}
		}
	}
	podDefaultsResourceList(c.Resources.Limits)
	podDefaultsResourceList(c.Resources.Requests)
	for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		if p != nil {
			podDefaultsProbe(p)
		}
	}
	if c.Lifecycle != nil {
		for _, h := range []*corev1.LifecycleHandler{c.Lifecycle.PostStart, c.Lifecycle.PreStop} {
			if h != nil && h.HTTPGet != nil {
				podDefaultsHTTPGet(h.HTTPGet)
			}
		}
	}
}

func podDefaultsProbe(p *corev1.Probe) {
	if p.TimeoutSeconds == 0 {
		p.TimeoutSeconds = 1
	}
	if p.PeriodSeconds == 0 {
		p.PeriodSeconds = 10
	}
	if p.SuccessThreshold == 0 {
		p.SuccessThreshold = 1
	}
	if p.FailureThreshold == 0 {
		p.FailureThreshold = 3
	}
	if p.HTTPGet != nil {
		podDefaultsHTTPGet(p.HTTPGet)
	}
	if p.GRPC != nil && p.GRPC.Service == nil {
		p.GRPC.Service = ptr.To("")
	}
}

func podDefaultsHTTPGet(a *corev1.HTTPGetAction) {
	if a.Path == "" {
		a.Path = "/"
	}
	if a.Scheme == "" {
		a.Scheme = corev1.URISchemeHTTP
	}
}

func podDefaultsFieldRef(f *corev1.ObjectFieldSelector) {
	if f.APIVersion == "" {
		f.APIVersion = "v1"
	}
}

// podDefaultsResourceList rounds quantities up to milli precision, as
// upstream does for API compatibility.
func podDefaultsResourceList(rl corev1.ResourceList) {
	for name, q := range rl {
		q.RoundUp(-3)
		rl[name] = q
	}
}

// podDefaultsVolume gives a volume without a source an emptyDir and fills
// the defaults of its source.
func podDefaultsVolume(v *corev1.Volume) {
	if ptr.AllPtrFieldsNil(&v.VolumeSource) {
		v.VolumeSource = corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}
	}
	src := &v.VolumeSource
	if src.HostPath != nil && src.HostPath.Type == nil {
		src.HostPath.Type = ptr.To(corev1.HostPathUnset)
	}
	if src.Secret != nil && src.Secret.DefaultMode == nil {
		src.Secret.DefaultMode = ptr.To(corev1.SecretVolumeSourceDefaultMode)
	}
	if src.ConfigMap != nil && src.ConfigMap.DefaultMode == nil {
		src.ConfigMap.DefaultMode = ptr.To(corev1.ConfigMapVolumeSourceDefaultMode)
	}
	if src.DownwardAPI != nil {
		if src.DownwardAPI.DefaultMode == nil {
			src.DownwardAPI.DefaultMode = ptr.To(corev1.DownwardAPIVolumeSourceDefaultMode)
		}
		podDefaultsDownwardAPIItems(src.DownwardAPI.Items)
	}
	if src.Projected != nil {
		podDefaultsProjected(src.Projected)
	}
	if src.ISCSI != nil && src.ISCSI.ISCSIInterface == "" {
		src.ISCSI.ISCSIInterface = "default"
	}
	if src.RBD != nil {
		podDefaultsRBD(src.RBD)
	}
	if src.AzureDisk != nil {
		podDefaultsAzureDisk(src.AzureDisk)
	}
	if src.ScaleIO != nil {
		if src.ScaleIO.StorageMode == "" {
			src.ScaleIO.StorageMode = "ThinProvisioned"
		}
		if src.ScaleIO.FSType == "" {
			src.ScaleIO.FSType = "xfs"
		}
	}
	if src.Ephemeral != nil && src.Ephemeral.VolumeClaimTemplate != nil {
		claim := &src.Ephemeral.VolumeClaimTemplate.Spec
		if claim.VolumeMode == nil {
			claim.VolumeMode = ptr.To(corev1.PersistentVolumeFilesystem)
		}
		podDefaultsResourceList(claim.Resources.Limits)
		podDefaultsResourceList(claim.Resources.Requests)
	}
	if src.Image != nil && src.Image.PullPolicy == "" {
		src.Image.PullPolicy = corev1.PullIfNotPresent
		if imageTag(src.Image.Reference) == "latest" {
			src.Image.PullPolicy = corev1.PullAlways
		}
	}
}

func podDefaultsProjected(p *corev1.ProjectedVolumeSource) {
	if p.DefaultMode == nil {
		p.DefaultMode = ptr.To(corev1.ProjectedVolumeSourceDefaultMode)
	}
	for i := range p.Sources {
		s := &p.Sources[i]
		if s.DownwardAPI != nil {
			podDefaultsDownwardAPIItems(s.DownwardAPI.Items)
		}
		if s.ServiceAccountToken != nil && s.ServiceAccountToken.ExpirationSeconds == nil {
			s.ServiceAccountToken.ExpirationSeconds = ptr.To[int64](3600)
		}
	}
}

func podDefaultsDownwardAPIItems(items []corev1.DownwardAPIVolumeFile) {
	for i := range items {
		if items[i].FieldRef != nil {
			podDefaultsFieldRef(items[i].FieldRef)
		}
	}
}

func podDefaultsRBD(r *corev1.RBDVolumeSource) {
	if r.RBDPool == "" {
		r.RBDPool = "rbd"
	}
	if r.RadosUser == "" {
		r.RadosUser = "admin"
	}
	if r.Keyring == "" {
		r.Keyring = "/etc/ceph/keyring"
	}
}

func podDefaultsAzureDisk(a *corev1.AzureDiskVolumeSource) {
	if a.CachingMode == nil {
		a.CachingMode = ptr.To(corev1.AzureDataDiskCachingReadWrite)
	}
	if a.FSType == nil {
		a.FSType = ptr.To("ext4")
	}
	if a.ReadOnly == nil {
		a.ReadOnly = ptr.To(false)
	}
	if a.Kind == nil {
		a.Kind = ptr.To(corev1.AzureSharedBlobDisk)
	}
}

// DefaultImagePullPolicy is the pull policy of a container that sets
// none: Always for a :latest image (an image without tag or digest is
// :latest), IfNotPresent otherwise, and for references that do not parse.
func DefaultImagePullPolicy(image string) corev1.PullPolicy {
	if imageTag(image) == "latest" {
		return corev1.PullAlways
	}
	return corev1.PullIfNotPresent
}

// imageReference is the docker reference grammar: an optional registry
// host, lower-case path components, an optional tag and an optional
// digest.
var imageReference = regexp.MustCompile(`^` +
	`(?:(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*(?::[0-9]+)?/)?` +
	`[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*` +
	`(?::([\w][\w.-]{0,127}))?` +
	`(@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?$`)

// imageTag returns the tag an image reference pulls: its own, "latest"
// when it has neither tag nor digest, "" for a digest only or a reference
// that does not parse.
func imageTag(image string) string {
	m := imageReference.FindStringSubmatch(image)
	if m == nil {
		return ""
	}
	tag, digest := m[1], m[2]
	if tag == "" && digest == "" {
		return "latest"
	}
	return tag
}

// registerPodDefaults adds the defaulting of pods and pod templates, and
// of their lists item by item.
func registerPodDefaults(scheme *runtime.Scheme) {
	scheme.AddTypeDefaultingFunc(&corev1.Pod{}, func(obj any) { SetDefaultsPod(obj.(*corev1.Pod)) })
	scheme.AddTypeDefaultingFunc(&corev1.PodList{}, func(obj any) {
		for i := range obj.(*corev1.PodList).Items {
			SetDefaultsPod(&obj.(*corev1.PodList).Items[i])
		}
	})
	scheme.AddTypeDefaultingFunc(&corev1.PodTemplate{}, func(obj any) { SetDefaultsPodTemplate(obj.(*corev1.PodTemplate)) })
	scheme.AddTypeDefaultingFunc(&corev1.PodTemplateList{}, func(obj any) {
		for i := range obj.(*corev1.PodTemplateList).Items {
			SetDefaultsPodTemplate(&obj.(*corev1.PodTemplateList).Items[i])
		}
	})
}
