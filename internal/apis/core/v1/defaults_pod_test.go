package v1

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
)

func TestDefaultImagePullPolicy(t *testing.T) {
	tests := []struct {
		image string
		want  corev1.PullPolicy
	}{
		{"nginx", corev1.PullAlways},
		{"nginx:latest", corev1.PullAlways},
		{"nginx:1.27", corev1.PullIfNotPresent},
		{"registry.example.com:5000/team/app", corev1.PullAlways},
		{"registry.example.com:5000/team/app:v2", corev1.PullIfNotPresent},
		{"nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", corev1.PullIfNotPresent},
		{"nginx:latest@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", corev1.PullAlways},
		{"Nginx", corev1.PullIfNotPresent}, // does not parse
		{"", corev1.PullIfNotPresent},
	}
	for _, tt := range tests {
		if got := DefaultImagePullPolicy(tt.image); got != tt.want {
			t.Errorf("DefaultImagePullPolicy(%q) = %s, want %s", tt.image, got, tt.want)
		}
	}
}

// defaultedContainer is a container named c with image nginx:1 after
// defaulting, with the given resources.
func defaultedContainer(res corev1.ResourceRequirements) corev1.Container {
	return corev1.Container{
		Name: "c", Image: "nginx:1", ImagePullPolicy: corev1.PullIfNotPresent,
		TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile,
		Resources: res,
	}
}

func defaultedSpec(containers ...corev1.Container) corev1.PodSpec {
	return corev1.PodSpec{
		Containers: containers, RestartPolicy: corev1.RestartPolicyAlways, DNSPolicy: corev1.DNSClusterFirst,
		TerminationGracePeriodSeconds: ptr.To[int64](30), SecurityContext: &corev1.PodSecurityContext{},
		SchedulerName: "default-scheduler",
	}
}

func TestPodDefaults(t *testing.T) {
	limits := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("1Gi")}
	withLimits := corev1.ResourceRequirements{Limits: limits}
	bare := corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx:1", Resources: withLimits}}}

	pod := &corev1.Pod{Spec: *bare.DeepCopy()}
	wantPod := &corev1.Pod{Spec: defaultedSpec(defaultedContainer(corev1.ResourceRequirements{Limits: limits, Requests: limits}))}
	wantPod.Spec.EnableServiceLinks = ptr.To(true)
	template := &corev1.PodTemplate{Template: corev1.PodTemplateSpec{Spec: *bare.DeepCopy()}}
	wantTemplate := &corev1.PodTemplate{Template: corev1.PodTemplateSpec{Spec: defaultedSpec(defaultedContainer(withLimits))}}

	scheme := newScheme(t)
	scheme.Default(pod)
	scheme.Default(template)
	if diff := cmp.Diff(wantPod, pod); diff != "" {
		t.Errorf("pod (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantTemplate, template); diff != "" {
		t.Errorf("template: no pod-only defaults (-want +got):\n%s", diff)
	}
}

func TestPodSpecNestedDefaults(t *testing.T) {
	spec := &corev1.PodSpec{
		Containers: []corev1.Container{{
			Name: "c", Image: "nginx",
			Ports:         []corev1.ContainerPort{{ContainerPort: 80}},
			Env:           []corev1.EnvVar{{Name: "N", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}},
			LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{}}},
		}},
		Volumes: []corev1.Volume{
			{Name: "none"},
			{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s"}}},
			{Name: "cm", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{}}},
			{Name: "h", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/x"}}},
		},
	}
	SetDefaultsPodSpec(spec)
	c := spec.Containers[0]
	checks := []struct {
		name      string
		got, want any
	}{
		{"pull policy", c.ImagePullPolicy, corev1.PullAlways},
		{"port protocol", c.Ports[0].Protocol, corev1.ProtocolTCP},
		{"fieldRef apiVersion", c.Env[0].ValueFrom.FieldRef.APIVersion, "v1"},
		{"probe", [4]int32{c.LivenessProbe.TimeoutSeconds, c.LivenessProbe.PeriodSeconds, c.LivenessProbe.SuccessThreshold, c.LivenessProbe.FailureThreshold}, [4]int32{1, 10, 1, 3}},
		{"httpGet", [2]string{c.LivenessProbe.HTTPGet.Path, string(c.LivenessProbe.HTTPGet.Scheme)}, [2]string{"/", "HTTP"}},
		{"emptyDir", spec.Volumes[0].EmptyDir != nil, true},
		{"secret mode", *spec.Volumes[1].Secret.DefaultMode, int32(420)},
		{"configMap mode", *spec.Volumes[2].ConfigMap.DefaultMode, int32(420)},
		{"hostPath type", *spec.Volumes[3].HostPath.Type, corev1.HostPathUnset},
	}
	for _, ch := range checks {
		if diff := cmp.Diff(ch.want, ch.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", ch.name, diff)
		}
	}
}

func TestPodHostNetworkPorts(t *testing.T) {
	pod := &corev1.Pod{Spec: corev1.PodSpec{HostNetwork: true, Containers: []corev1.Container{{Ports: []corev1.ContainerPort{{ContainerPort: 8080}}}}}}
	SetDefaultsPod(pod)
	if got := pod.Spec.Containers[0].Ports[0].HostPort; got != 8080 {
		t.Errorf("hostPort = %d, want 8080", got)
	}
}
