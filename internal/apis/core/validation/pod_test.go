package validation

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// validPod is a defaulted pod that passes validation.
func validPod() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", ResourceVersion: "1"},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name: "c", Image: "nginx:1", ImagePullPolicy: corev1.PullIfNotPresent,
				TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile,
				Ports:        []corev1.ContainerPort{{Name: "http", ContainerPort: 80, Protocol: corev1.ProtocolTCP}},
				VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}},
			}},
			Volumes:                       []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
			RestartPolicy:                 corev1.RestartPolicyAlways,
			DNSPolicy:                     corev1.DNSClusterFirst,
			TerminationGracePeriodSeconds: ptr.To[int64](30),
			SecurityContext:               &corev1.PodSecurityContext{},
			SchedulerName:                 "default-scheduler",
		},
	}
}

// fieldsOf renders errors as "path: type", sorted.
func fieldsOf(errs field.ErrorList) []string {
	out := []string{}
	for _, e := range errs {
		out = append(out, fmt.Sprintf("%s: %s", e.Field, e.Type))
	}
	slices.Sort(out)
	return out
}

// podCase changes a valid pod and names the fields ValidatePod must
// refuse (sorted) and, if set, a substring of the errors' details.
type podCase struct {
	name   string
	mutate func(p *corev1.Pod)
	want   []string
	detail string
}

func runPodCases(t *testing.T, tests []podCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := validPod()
			tt.mutate(p)
			errs := ValidatePod(p)
			want := tt.want
			if want == nil {
				want = []string{}
			}
			slices.Sort(want)
			if diff := cmp.Diff(want, fieldsOf(errs)); diff != "" {
				t.Fatalf("errors (-want +got):\n%s\n%v", diff, errs)
			}
			if tt.detail != "" && !strings.Contains(errs.ToAggregate().Error(), tt.detail) {
				t.Errorf("errors %v do not say %q", errs, tt.detail)
			}
		})
	}
}

func TestValidatePod(t *testing.T) {
	q := resource.MustParse
	tests := []podCase{
		{"valid", func(*corev1.Pod) {}, nil, ""},
		{"no containers", func(p *corev1.Pod) { p.Spec.Containers = nil }, []string{"spec.containers: Required value"}, ""},
		{"bad name", func(p *corev1.Pod) { p.Name = "Bad_Name" }, []string{"metadata.name: Invalid value"}, ""},
		{"container name", func(p *corev1.Pod) { p.Spec.Containers[0].Name = "C1" }, []string{"spec.containers[0].name: Invalid value"}, "RFC 1123 label"},
		{"duplicate container", func(p *corev1.Pod) { p.Spec.Containers = append(p.Spec.Containers, p.Spec.Containers[0]) },
			[]string{"spec.containers[1].name: Duplicate value"}, ""},
		{"image", func(p *corev1.Pod) { p.Spec.Containers[0].Image = "" }, []string{"spec.containers[0].image: Required value"}, ""},
		{"image spaces", func(p *corev1.Pod) { p.Spec.Containers[0].Image = " nginx" }, []string{"spec.containers[0].image: Invalid value"}, "leading or trailing whitespace"},
		{"port range", func(p *corev1.Pod) { p.Spec.Containers[0].Ports[0].ContainerPort = 70000 }, []string{"spec.containers[0].ports[0].containerPort: Invalid value"}, "between 1 and 65535"},
		{"port required", func(p *corev1.Pod) { p.Spec.Containers[0].Ports[0].ContainerPort = 0 }, []string{"spec.containers[0].ports[0].containerPort: Required value"}, ""},
		{"protocol", func(p *corev1.Pod) { p.Spec.Containers[0].Ports[0].Protocol = "HTTP" }, []string{"spec.containers[0].ports[0].protocol: Unsupported value"}, `supported values: "SCTP", "TCP", "UDP"`},
		{"port name", func(p *corev1.Pod) { p.Spec.Containers[0].Ports[0].Name = "way-too-long-port-name" }, []string{"spec.containers[0].ports[0].name: Invalid value"}, ""},
		{"request above limit", func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources = corev1.ResourceRequirements{Limits: corev1.ResourceList{"cpu": q("1")}, Requests: corev1.ResourceList{"cpu": q("2")}}
		}, []string{"spec.containers[0].resources.requests: Invalid value"}, "must be less than or equal to cpu limit of 1"},
		{"negative quantity", func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources = corev1.ResourceRequirements{Requests: corev1.ResourceList{"memory": q("-1")}}
		}, []string{"spec.containers[0].resources.requests[memory]: Invalid value"}, "must be greater than or equal to 0"},
		{"unknown resource", func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources = corev1.ResourceRequirements{Requests: corev1.ResourceList{"pods": q("1")}}
		}, []string{"spec.containers[0].resources.requests[pods]: Invalid value"}, "must be a standard resource for containers"},
		{"extended resource needs limit", func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources = corev1.ResourceRequirements{Requests: corev1.ResourceList{"example.com/gpu": q("1")}}
		}, []string{"spec.containers[0].resources.limits: Required value"}, "Limit must be set"},
		{"env name", func(p *corev1.Pod) { p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "A=B"}} }, []string{"spec.containers[0].env[0].name: Invalid value"}, ""},
		{"env source", func(p *corev1.Pod) {
			p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "A", Value: "x", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{Key: "k"}}}}
		}, []string{"spec.containers[0].env[0].valueFrom.secretKeyRef.name: Required value", "spec.containers[0].env[0].valueFrom: Invalid value"}, ""},
		{"fieldRef path", func(p *corev1.Pod) {
			p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "A", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "spec.foo"}}}}
		}, []string{"spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Unsupported value"}, ""},
		{"mount not found", func(p *corev1.Pod) { p.Spec.Containers[0].VolumeMounts[0].Name = "other" }, []string{"spec.containers[0].volumeMounts[0].name: Not found"}, ""},
		{"volume name", func(p *corev1.Pod) { p.Spec.Volumes = append(p.Spec.Volumes, p.Spec.Volumes[0]) }, []string{"spec.volumes[1].name: Duplicate value"}, ""},
		{"volume source", func(p *corev1.Pod) {
			p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{}}})
		}, []string{"spec.volumes[1].secret.secretName: Required value"}, ""},
		{"two volume sources", func(p *corev1.Pod) {
			p.Spec.Volumes[0].HostPath = &corev1.HostPathVolumeSource{Path: "/x"}
		}, []string{"spec.volumes[0].emptyDir: Forbidden", "spec.containers[0].volumeMounts[0].name: Not found"}, ""},
		{"restart policy", func(p *corev1.Pod) { p.Spec.RestartPolicy = "Sometimes" }, []string{"spec.restartPolicy: Unsupported value"}, ""},
		{"dns policy", func(p *corev1.Pod) { p.Spec.DNSPolicy = "Google" }, []string{"spec.dnsPolicy: Unsupported value"}, ""},
		{"active deadline", func(p *corev1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr.To[int64](0) }, []string{"spec.activeDeadlineSeconds: Invalid value"}, ""},
		{"node selector", func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"a b": "c"} }, []string{"spec.nodeSelector: Invalid value"}, ""},
		{"toleration", func(p *corev1.Pod) {
			p.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpEqual, Value: "x"}, {Key: "k", Operator: "Sometimes"}}
		}, []string{"spec.tolerations[0].operator: Invalid value", "spec.tolerations[1].operator: Unsupported value"}, ""},
		{"ephemeral on create", func(p *corev1.Pod) {
			p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
				Name: "debug", Image: "busybox", ImagePullPolicy: corev1.PullIfNotPresent, TerminationMessagePolicy: corev1.TerminationMessageReadFile}}}
		}, []string{"spec.ephemeralContainers: Forbidden"}, ""},
		{"probe handler", func(p *corev1.Pod) { p.Spec.Containers[0].LivenessProbe = &corev1.Probe{SuccessThreshold: 2} }, []string{
			"spec.containers[0].livenessProbe.successThreshold: Invalid value", "spec.containers[0].livenessProbe: Required value"}, ""},
		{"init readiness probe", func(p *corev1.Pod) {
			c := p.Spec.Containers[0]
			c.Name, c.Ports, c.ReadinessProbe = "init", nil, &corev1.Probe{}
			p.Spec.InitContainers = []corev1.Container{c}
		}, []string{"spec.initContainers[0].readinessProbe: Forbidden"}, ""},
	}
	runPodCases(t, tests)
}

func TestValidatePodUpdate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(p *corev1.Pod)
		want   []string
		detail string
	}{
		{"image", func(p *corev1.Pod) { p.Spec.Containers[0].Image = "nginx:2" }, nil, ""},
		{"add toleration", func(p *corev1.Pod) {
			p.Spec.Tolerations = []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists}}
		}, nil, ""},
		{"set deadline", func(p *corev1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr.To[int64](10) }, nil, ""},
		{"port", func(p *corev1.Pod) { p.Spec.Containers[0].Ports[0].ContainerPort = 81 }, []string{"spec: Forbidden"},
			"pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"},
		{"grace period", func(p *corev1.Pod) { p.Spec.TerminationGracePeriodSeconds = ptr.To[int64](5) }, []string{"spec: Forbidden"}, ""},
		{"add container", func(p *corev1.Pod) {
			c := p.Spec.Containers[0]
			c.Name, c.Ports = "d", nil
			p.Spec.Containers = append(p.Spec.Containers, c)
		}, []string{"spec.containers: Forbidden"}, "may not add or remove containers"},
		{"name", func(p *corev1.Pod) { p.Name = "q" }, []string{"metadata.name: Invalid value"}, "field is immutable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := validPod()
			p := validPod()
			tt.mutate(p)
			errs := ValidatePodUpdate(p, old)
			want := tt.want
			if want == nil {
				want = []string{}
			}
			if diff := cmp.Diff(want, fieldsOf(errs)); diff != "" {
				t.Fatalf("errors (-want +got):\n%s\n%v", diff, errs)
			}
			if tt.detail != "" && !strings.Contains(errs.ToAggregate().Error(), tt.detail) {
				t.Errorf("errors %v do not say %q", errs, tt.detail)
			}
		})
	}
}

func TestValidatePodTemplate(t *testing.T) {
	pod := validPod()
	tmpl := &corev1.PodTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: "t", Namespace: "ns"},
		Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "-bad-"}},
			Spec:       pod.Spec,
		},
	}
	tmpl.Template.Spec.Containers[0].Image = ""
	want := []string{"template.labels: Invalid value", "template.spec.containers[0].image: Required value"}
	if diff := cmp.Diff(want, fieldsOf(ValidatePodTemplate(tmpl))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestComputePodQOS(t *testing.T) {
	q := resource.MustParse
	both := corev1.ResourceList{"cpu": q("1"), "memory": q("1Gi")}
	tests := []struct {
		name string
		res  corev1.ResourceRequirements
		want corev1.PodQOSClass
	}{
		{"none", corev1.ResourceRequirements{}, corev1.PodQOSBestEffort},
		{"equal", corev1.ResourceRequirements{Limits: both, Requests: both}, corev1.PodQOSGuaranteed},
		{"requests only", corev1.ResourceRequirements{Requests: both}, corev1.PodQOSBurstable},
		{"cpu limit only", corev1.ResourceRequirements{Limits: corev1.ResourceList{"cpu": q("1")}, Requests: corev1.ResourceList{"cpu": q("1")}}, corev1.PodQOSBurstable},
	}
	for _, tt := range tests {
		p := validPod()
		p.Spec.Containers[0].Resources = tt.res
		if got := ComputePodQOS(p); got != tt.want {
			t.Errorf("%s: QoS = %s, want %s", tt.name, got, tt.want)
		}
	}
}
