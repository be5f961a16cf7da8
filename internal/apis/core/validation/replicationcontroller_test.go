package validation

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func validRC() *corev1.ReplicationController {
	labels := map[string]string{"app": "x"}
	return &corev1.ReplicationController{
		ObjectMeta: metav1.ObjectMeta{Name: "rc", Namespace: "ns"},
		Spec: corev1.ReplicationControllerSpec{
			Replicas: ptr.To[int32](1),
			Selector: labels,
			Template: &corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyAlways,
					DNSPolicy:     corev1.DNSClusterFirst,
					Containers: []corev1.Container{{
						Name: "c", Image: "nginx", ImagePullPolicy: corev1.PullIfNotPresent,
						TerminationMessagePolicy: corev1.TerminationMessageReadFile,
					}},
				},
			},
		},
	}
}

func TestValidateReplicationController(t *testing.T) {
	rc := func(mutate func(*corev1.ReplicationController)) *corev1.ReplicationController {
		r := validRC()
		mutate(r)
		return r
	}
	tests := []struct {
		name string
		rc   *corev1.ReplicationController
		want []string
	}{
		{"valid", rc(func(*corev1.ReplicationController) {}), nil},
		{"no selector", rc(func(r *corev1.ReplicationController) { r.Spec.Selector = nil }),
			[]string{"spec.selector: Required value: "}},
		{"selector mismatch", rc(func(r *corev1.ReplicationController) { r.Spec.Selector = map[string]string{"app": "y"} }),
			[]string{"spec.template.metadata.labels: Invalid value: `selector` does not match template `labels`"}},
		{"negative replicas", rc(func(r *corev1.ReplicationController) { r.Spec.Replicas = ptr.To[int32](-1) }),
			[]string{"spec.replicas: Invalid value: must be greater than or equal to 0"}},
		{"no template", rc(func(r *corev1.ReplicationController) { r.Spec.Template = nil }),
			[]string{"spec.template: Required value: "}},
		{"restart never", rc(func(r *corev1.ReplicationController) { r.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever }),
			[]string{`spec.template.spec.restartPolicy: Unsupported value: supported values: "Always"`}},
		{"deadline", rc(func(r *corev1.ReplicationController) { r.Spec.Template.Spec.ActiveDeadlineSeconds = ptr.To[int64](5) }),
			[]string{"spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicationController is not Supported"}},
		{"negative minReadySeconds", rc(func(r *corev1.ReplicationController) { r.Spec.MinReadySeconds = -1 }),
			[]string{"spec.minReadySeconds: Invalid value: must be greater than or equal to 0"}},
	}
	for _, tt := range tests {
		checkErrors(t, tt.name, ValidateReplicationController(tt.rc), tt.want)
	}
}

func TestValidateReplicationControllerStatusUpdate(t *testing.T) {
	old := validRC()
	old.ResourceVersion = "1"
	rc := old.DeepCopy()
	rc.Status = corev1.ReplicationControllerStatus{Replicas: 1, ReadyReplicas: 2, AvailableReplicas: 1}
	checkErrors(t, "ready above replicas", ValidateReplicationControllerStatusUpdate(rc, old),
		[]string{"status.readyReplicas: Invalid value: cannot be greater than status.replicas"})
}
