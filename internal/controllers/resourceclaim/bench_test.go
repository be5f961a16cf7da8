package resourceclaim

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// BenchmarkEnqueuePod is the informer event path for a Pod whose
// generated claim exists: what every update of such a Pod costs.
func BenchmarkEnqueuePod(b *testing.B) {
	p := podWithTemplate("web", "uid-1", "tmpl")
	p.Status.ResourceClaimStatuses = []corev1.PodResourceClaimStatus{{Name: "gpu", ResourceClaimName: ptr.To("web-gpu-x")}}
	claim := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "web-gpu-x", Namespace: ns,
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "web", UID: "uid-1", Controller: ptr.To(true)}}}}
	f := newFixture(b, p, claim)
	b.ReportAllocs()
	for b.Loop() {
		f.c.enqueuePod(p, false)
	}
}
