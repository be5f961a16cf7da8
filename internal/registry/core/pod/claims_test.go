package pod

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// invalidField fails unless err is a 422 whose first cause is at path.
func invalidField(t *testing.T, what string, err error, path string) {
	t.Helper()
	if !apierrors.IsInvalid(err) {
		t.Fatalf("%s: want Invalid, got %v", what, err)
	}
	causes := err.(apierrors.APIStatus).Status().Details.Causes
	if len(causes) == 0 || causes[0].Field != path {
		t.Fatalf("%s: want a cause at %s, got %v", what, path, causes)
	}
}

// TestResourceClaimsThroughStorage: the claim rules reach the REST
// storage on create, update and pods/status, where the status write is
// checked against the stored spec (a status write cannot change it).
func TestResourceClaimsThroughStorage(t *testing.T) {
	scheme, s := newStorage(t, Options{})
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "dra", Namespace: "default"},
		Spec: corev1.PodSpec{
			ResourceClaims: []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: ptr.To("gpu-template")}},
			Containers: []corev1.Container{{Name: "c", Image: "nginx:1", Resources: corev1.ResourceRequirements{
				Claims: []corev1.ResourceClaim{{Name: "gpu"}},
			}}},
		},
	}
	scheme.Default(pod)

	bad := pod.DeepCopy()
	bad.Name = "bad"
	bad.Spec.Containers[0].Resources.Claims[0].Name = "fpga"
	_, err := podStore(s).Create(ctx, bad, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	invalidField(t, "create with unknown claim", err, "spec.containers[0].resources.claims[0]")

	out, err := podStore(s).Create(ctx, pod, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	created := out.(*corev1.Pod)

	changed := created.DeepCopy()
	changed.Spec.ResourceClaims[0].ResourceClaimTemplateName = ptr.To("other")
	_, err = update(t, s["pods"], changed)
	invalidField(t, "update of resourceClaims", err, "spec")

	status := created.DeepCopy()
	status.Status.ResourceClaimStatuses = []corev1.PodResourceClaimStatus{{Name: "fpga", ResourceClaimName: ptr.To("dra-fpga-1")}}
	_, err = update(t, s["pods/status"], status)
	invalidField(t, "status for unknown claim", err, "status.resourceClaimStatuses[0].name")

	// A status writer that also drops spec.resourceClaims is still
	// checked against the stored spec, so its claim status is accepted.
	status.Status.ResourceClaimStatuses[0].Name = "gpu"
	status.Spec.ResourceClaims = nil
	got, err := update(t, s["pods/status"], status)
	if err != nil {
		t.Fatalf("status write: %v", err)
	}
	if n := got.Status.ResourceClaimStatuses; len(n) != 1 || ptr.Deref(n[0].ResourceClaimName, "") != "dra-fpga-1" || len(got.Spec.ResourceClaims) != 1 {
		t.Fatalf("stored pod: claims %v, statuses %v", got.Spec.ResourceClaims, n)
	}
}
