package v1

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

func TestOtherDefaults(t *testing.T) {
	q := resource.MustParse
	fs := ptr.To(corev1.PersistentVolumeFilesystem)
	block := ptr.To(corev1.PersistentVolumeBlock)
	labels := map[string]string{"app": "x"}
	tests := []struct {
		name     string
		obj, out runtime.Object
	}{
		{"node allocatable from capacity",
			&corev1.Node{Status: corev1.NodeStatus{Capacity: corev1.ResourceList{"cpu": q("1500u")}}},
			&corev1.Node{Status: corev1.NodeStatus{Capacity: corev1.ResourceList{"cpu": q("2m")}, Allocatable: corev1.ResourceList{"cpu": q("2m")}}}},
		{"node allocatable kept",
			&corev1.Node{Status: corev1.NodeStatus{Capacity: corev1.ResourceList{"cpu": q("2")}, Allocatable: corev1.ResourceList{"cpu": q("1")}}},
			&corev1.Node{Status: corev1.NodeStatus{Capacity: corev1.ResourceList{"cpu": q("2")}, Allocatable: corev1.ResourceList{"cpu": q("1")}}}},
		{"node podCIDR to podCIDRs",
			&corev1.Node{Spec: corev1.NodeSpec{PodCIDR: "10.0.0.0/24"}},
			&corev1.Node{Spec: corev1.NodeSpec{PodCIDR: "10.0.0.0/24", PodCIDRs: []string{"10.0.0.0/24"}}}},
		{"node podCIDRs to podCIDR",
			&corev1.Node{Spec: corev1.NodeSpec{PodCIDRs: []string{"10.0.0.0/24", "fd00::/64"}}},
			&corev1.Node{Spec: corev1.NodeSpec{PodCIDR: "10.0.0.0/24", PodCIDRs: []string{"10.0.0.0/24", "fd00::/64"}}}},
		{"node podCIDR wins",
			&corev1.Node{Spec: corev1.NodeSpec{PodCIDR: "10.1.0.0/24", PodCIDRs: []string{"10.0.0.0/24"}}},
			&corev1.Node{Spec: corev1.NodeSpec{PodCIDR: "10.1.0.0/24", PodCIDRs: []string{"10.1.0.0/24"}}}},
		{"pv",
			&corev1.PersistentVolume{Spec: corev1.PersistentVolumeSpec{PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/x"}}}},
			&corev1.PersistentVolume{
				Spec: corev1.PersistentVolumeSpec{
					PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/x", Type: ptr.To(corev1.HostPathUnset)}},
					PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
					VolumeMode:                    fs,
				},
				Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumePending},
			}},
		{"pv kept",
			&corev1.PersistentVolume{Spec: corev1.PersistentVolumeSpec{PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete, VolumeMode: block}, Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound}},
			&corev1.PersistentVolume{Spec: corev1.PersistentVolumeSpec{PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete, VolumeMode: block}, Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound}}},
		{"pvc",
			&corev1.PersistentVolumeClaim{},
			&corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{VolumeMode: fs}, Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}}},
		{"limit range container",
			&corev1.LimitRange{Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
				Type: corev1.LimitTypeContainer,
				Max:  corev1.ResourceList{"cpu": q("2"), "memory": q("1Gi")},
				Min:  corev1.ResourceList{"ephemeral-storage": q("1Gi")},
			}}}},
			&corev1.LimitRange{Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
				Type:           corev1.LimitTypeContainer,
				Max:            corev1.ResourceList{"cpu": q("2"), "memory": q("1Gi")},
				Min:            corev1.ResourceList{"ephemeral-storage": q("1Gi")},
				Default:        corev1.ResourceList{"cpu": q("2"), "memory": q("1Gi")},
				DefaultRequest: corev1.ResourceList{"cpu": q("2"), "memory": q("1Gi"), "ephemeral-storage": q("1Gi")},
			}}}}},
		{"limit range pod",
			&corev1.LimitRange{Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypePod, Max: corev1.ResourceList{"cpu": q("2")}}}}},
			&corev1.LimitRange{Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypePod, Max: corev1.ResourceList{"cpu": q("2")}}}}}},
		{"quota rounding",
			&corev1.ResourceQuota{Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"requests.cpu": q("0.0001")}}},
			&corev1.ResourceQuota{Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"requests.cpu": q("1m")}}}},
		{"rc selector and labels from template",
			&corev1.ReplicationController{Spec: corev1.ReplicationControllerSpec{Template: &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}}}},
			&corev1.ReplicationController{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.ReplicationControllerSpec{
				Replicas: ptr.To[int32](1), Selector: labels, Template: podTemplateDefaulted(labels)}}},
		{"rc keeps its selector, labels and replicas",
			&corev1.ReplicationController{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"own": "y"}}, Spec: corev1.ReplicationControllerSpec{
				Replicas: ptr.To[int32](0), Selector: map[string]string{"app": "x"}, Template: &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "x", "v": "1"}}}}},
			&corev1.ReplicationController{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"own": "y"}}, Spec: corev1.ReplicationControllerSpec{
				Replicas: ptr.To[int32](0), Selector: map[string]string{"app": "x"}, Template: podTemplateDefaulted(map[string]string{"app": "x", "v": "1"})}}},
		{"rc list",
			&corev1.ReplicationControllerList{Items: []corev1.ReplicationController{{}}},
			&corev1.ReplicationControllerList{Items: []corev1.ReplicationController{{Spec: corev1.ReplicationControllerSpec{Replicas: ptr.To[int32](1)}}}}},
		{"pv list",
			&corev1.PersistentVolumeList{Items: []corev1.PersistentVolume{{}}},
			&corev1.PersistentVolumeList{Items: []corev1.PersistentVolume{{
				Spec:   corev1.PersistentVolumeSpec{PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain, VolumeMode: fs},
				Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumePending},
			}}}},
	}
	scheme := newScheme(t)
	for _, tt := range tests {
		scheme.Default(tt.obj)
		if diff := cmp.Diff(tt.out, tt.obj); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// podTemplateDefaulted is a template with labels and the pod template
// defaults applied, whatever they are.
func podTemplateDefaulted(labels map[string]string) *corev1.PodTemplateSpec {
	t := &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}}
	SetDefaultsPodTemplateSpec(t)
	return t
}

func TestOtherFieldLabels(t *testing.T) {
	scheme := newScheme(t)
	if err := AddFieldLabelConversions(scheme); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		kind, label string
		ok          bool
	}{
		{"Node", "spec.unschedulable", true},
		{"Node", "metadata.name", true},
		{"Node", "metadata.namespace", false},
		{"ReplicationController", "status.replicas", true},
		{"ReplicationController", "metadata.namespace", true},
		{"ReplicationController", "spec.replicas", false},
	}
	for _, tt := range tests {
		_, _, err := scheme.ConvertFieldLabel(corev1.SchemeGroupVersion.WithKind(tt.kind), tt.label, "x")
		if (err == nil) != tt.ok {
			t.Errorf("%s %s: err = %v, want ok=%v", tt.kind, tt.label, err, tt.ok)
		}
	}
}
