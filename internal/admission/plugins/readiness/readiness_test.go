package readiness

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kapi-dev/kapi/internal/admission"
)

func TestWait(t *testing.T) {
	a := &admission.Attributes{Name: "c", Resource: corev1.SchemeGroupVersion.WithResource("persistentvolumeclaims")}
	if err := Wait(context.Background(), a, nil, func() bool { return true }); err != nil {
		t.Fatalf("synced caches: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := Wait(ctx, a, func() bool { return false })
	if want := `persistentvolumeclaims "c" is forbidden: not yet ready to handle request`; !apierrors.IsForbidden(err) || err.Error() != want {
		t.Fatalf("got %v, want 403 %s", err, want)
	}
}
