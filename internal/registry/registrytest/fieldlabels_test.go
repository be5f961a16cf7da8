package registrytest_test

import (
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/batch/job"
	"github.com/kapi-dev/kapi/internal/registry/certificates/certificatesigningrequest"
	"github.com/kapi-dev/kapi/internal/registry/coordination/lease"
	"github.com/kapi-dev/kapi/internal/registry/core/configmap"
	"github.com/kapi-dev/kapi/internal/registry/core/event"
	"github.com/kapi-dev/kapi/internal/registry/core/limitrange"
	"github.com/kapi-dev/kapi/internal/registry/core/namespace"
	"github.com/kapi-dev/kapi/internal/registry/core/node"
	"github.com/kapi-dev/kapi/internal/registry/core/persistentvolume"
	"github.com/kapi-dev/kapi/internal/registry/core/persistentvolumeclaim"
	"github.com/kapi-dev/kapi/internal/registry/core/pod"
	"github.com/kapi-dev/kapi/internal/registry/core/podtemplate"
	"github.com/kapi-dev/kapi/internal/registry/core/replicationcontroller"
	"github.com/kapi-dev/kapi/internal/registry/core/resourcequota"
	"github.com/kapi-dev/kapi/internal/registry/core/secret"
	"github.com/kapi-dev/kapi/internal/registry/core/service"
	"github.com/kapi-dev/kapi/internal/registry/core/serviceaccount"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/resource/resourceslice"
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
		{&corev1.Pod{}, pod.GetAttrs, nil},
		{&corev1.PodTemplate{}, podtemplate.GetAttrs, nil},
		{&corev1.Service{}, service.GetAttrs, nil},
		{&corev1.Node{}, node.GetAttrs, nil},
		{&corev1.ReplicationController{}, replicationcontroller.GetAttrs, nil},
		{&corev1.LimitRange{}, limitrange.GetAttrs, nil},
		{&corev1.ResourceQuota{}, resourcequota.GetAttrs, nil},
		{&corev1.PersistentVolume{}, persistentvolume.GetAttrs, map[string]bool{"name": true}},
		{&corev1.PersistentVolumeClaim{}, persistentvolumeclaim.GetAttrs, map[string]bool{"name": true}},
		{&batchv1.Job{}, job.GetAttrs, nil},
		{&certificatesv1.CertificateSigningRequest{}, certificatesigningrequest.GetAttrs, nil},
		{&resourcev1.ResourceSlice{}, resourceslice.GetAttrs, nil},
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
