package controlplane

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// TestResourceClaimControllerThroughTheServer: a Pod naming a
// ResourceClaimTemplate gets its own ResourceClaim (owned by the Pod,
// annotated with the pod claim name) and the claim's name in
// status.resourceClaimStatuses, applied by ResourceClaimController on
// pods/status; the Pod stays Pending without nodes. Once the Pod has
// failed, the unreserved claim is deleted.
func TestResourceClaimControllerThroughTheServer(t *testing.T) {
	s := startServer(t, "memory")
	cs := kubernetes.NewForConfigOrDie(s.restCfg)
	ctx := context.Background()
	tmpl := &resourcev1.ResourceClaimTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: "gpu", Namespace: "default"},
		Spec: resourcev1.ResourceClaimTemplateSpec{Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{
			Requests: []resourcev1.DeviceRequest{{Name: "gpu", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu.example.com"}}},
		}}},
	}
	if _, err := cs.ResourceV1().ResourceClaimTemplates("default").Create(ctx, tmpl, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "trainer", Namespace: "default"},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "c", Image: "trainer",
				Resources: corev1.ResourceRequirements{Claims: []corev1.ResourceClaim{{Name: "accel"}}}}},
			ResourceClaims: []corev1.PodResourceClaim{{Name: "accel", ResourceClaimTemplateName: ptr.To("gpu")}},
		},
	}
	created, err := cs.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var claimName string
	poll(t, "resourceClaimStatuses recorded", func(ctx context.Context) (bool, error) {
		p, err := cs.CoreV1().Pods("default").Get(ctx, "trainer", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if st := p.Status.ResourceClaimStatuses; len(st) == 1 && st[0].Name == "accel" && st[0].ResourceClaimName != nil {
			claimName = *st[0].ResourceClaimName
			return true, nil
		}
		return false, nil
	})
	claim, err := cs.ResourceV1().ResourceClaims("default").Get(ctx, claimName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(claim.Name, "trainer-accel-") || claim.Annotations["resource.kubernetes.io/pod-claim-name"] != "accel" {
		t.Errorf("claim %s, annotations %v", claim.Name, claim.Annotations)
	}
	if !metav1.IsControlledBy(claim, created) || !ptr.Deref(claim.OwnerReferences[0].BlockOwnerDeletion, false) {
		t.Errorf("owner references %+v", claim.OwnerReferences)
	}
	p, err := cs.CoreV1().Pods("default").Get(ctx, "trainer", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Status.Phase != corev1.PodPending {
		t.Errorf("phase %q, want Pending", p.Status.Phase)
	}
	applied := false
	for _, m := range p.ManagedFields {
		applied = applied || m.Manager == "ResourceClaimController" && m.Operation == metav1.ManagedFieldsOperationApply && m.Subresource == "status"
	}
	if !applied {
		t.Errorf("no apply of pods/status by ResourceClaimController in %+v", p.ManagedFields)
	}

	p.Status.Phase = corev1.PodFailed
	if _, err := cs.CoreV1().Pods("default").UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "claim of the failed pod deleted", func(ctx context.Context) (bool, error) {
		_, err := cs.ResourceV1().ResourceClaims("default").Get(ctx, claimName, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
}
