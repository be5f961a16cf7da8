package registrytest_test

import (
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/coordination/lease"
	"github.com/kapi-dev/kapi/internal/registry/core/configmap"
	"github.com/kapi-dev/kapi/internal/registry/core/event"
	"github.com/kapi-dev/kapi/internal/registry/core/namespace"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/core/secret"
	"github.com/kapi-dev/kapi/internal/registry/core/serviceaccount"
	"github.com/kapi-dev/kapi/internal/storage"
)

// TestSelectableFieldsAreAccepted keeps each resource's GetAttrs and the
// scheme's field-label conversions in step: every field a resource offers
// must be accepted in a field selector, or nobody could select by it.
func TestSelectableFieldsAreAccepted(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	tests := []struct {
		obj   runtime.Object
		attrs storage.AttrFunc
		// legacy fields GetAttrs keeps for old internal callers only.
		legacy map[string]bool
	}{
		{&corev1.ConfigMap{}, configmap.GetAttrs, nil},
		{&corev1.Secret{}, secret.GetAttrs, nil},
		{&corev1.ServiceAccount{}, serviceaccount.GetAttrs, nil},
		{&corev1.Event{}, event.GetAttrs, nil},
		{&corev1.Namespace{}, namespace.GetAttrs, map[string]bool{"name": true}},
		{&coordinationv1.Lease{}, lease.GetAttrs, nil},
	}
	for _, tt := range tests {
		gvks, _, err := scheme.ObjectKinds(tt.obj)
		if err != nil {
			t.Fatal(err)
		}
		_, fs, err := tt.attrs(tt.obj)
		if err != nil {
			t.Fatalf("%s: %v", gvks[0].Kind, err)
		}
		for label := range fs {
			if tt.legacy[label] {
				continue
			}
			if _, _, err := scheme.ConvertFieldLabel(gvks[0], label, "x"); err != nil {
				t.Errorf("%s offers %q but field selectors reject it: %v", gvks[0].Kind, label, err)
			}
		}
	}
}
