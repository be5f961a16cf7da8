package registrytest_test

import (
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	resourcev1 "k8s.io/api/resource/v1"
	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/registry/batch/job"
	"github.com/kapi-dev/kapi/internal/registry/certificates/certificatesigningrequest"
	"github.com/kapi-dev/kapi/internal/registry/certificates/clustertrustbundle"
	"github.com/kapi-dev/kapi/internal/registry/certificates/podcertificaterequest"
	"github.com/kapi-dev/kapi/internal/registry/core/configmap"
	"github.com/kapi-dev/kapi/internal/registry/core/event"
	"github.com/kapi-dev/kapi/internal/registry/core/namespace"
	"github.com/kapi-dev/kapi/internal/registry/core/node"
	"github.com/kapi-dev/kapi/internal/registry/core/pod"
	"github.com/kapi-dev/kapi/internal/registry/core/replicationcontroller"
	"github.com/kapi-dev/kapi/internal/registry/core/secret"
	"github.com/kapi-dev/kapi/internal/registry/core/service"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/resource/resourceslice"
	"github.com/kapi-dev/kapi/internal/storage"
)

// same maps each label to itself.
func same(labels ...string) map[string]string {
	m := make(map[string]string, len(labels))
	for _, l := range labels {
		m[l] = l
	}
	return m
}

// merge joins label maps.
func merge(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// TestUpstreamFieldSelectors lists, per kind, the field selectors
// kube-apiserver accepts (its AddFieldLabelConversionFunc registrations,
// and the default metadata.name/metadata.namespace for the rest) and the
// field each one selects on in storage; every label must be accepted,
// mapped the same way, and offered by the resource's GetAttrs, and
// nothing else may be accepted.
func TestUpstreamFieldSelectors(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	meta := same("metadata.name", "metadata.namespace")
	tests := []struct {
		gvk    schema.GroupVersionKind
		obj    runtime.Object // the stored object GetAttrs sees
		attrs  storage.AttrFunc
		labels map[string]string // label -> field in storage
	}{
		{corev1.SchemeGroupVersion.WithKind("ConfigMap"), &corev1.ConfigMap{}, configmap.GetAttrs, meta},
		{corev1.SchemeGroupVersion.WithKind("Pod"), &corev1.Pod{}, pod.GetAttrs, merge(meta, same(
			"spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName", "spec.hostNetwork",
			"status.phase", "status.podIP", "status.podIPs", "status.nominatedNodeName"),
			// What old v1 clients send.
			map[string]string{"spec.host": "spec.nodeName"})},
		{corev1.SchemeGroupVersion.WithKind("Node"), &corev1.Node{}, node.GetAttrs, same("metadata.name", "spec.unschedulable")},
		{corev1.SchemeGroupVersion.WithKind("ReplicationController"), &corev1.ReplicationController{}, replicationcontroller.GetAttrs, merge(meta, same("status.replicas"))},
		{corev1.SchemeGroupVersion.WithKind("Namespace"), &corev1.Namespace{}, namespace.GetAttrs, same("metadata.name", "status.phase")},
		{corev1.SchemeGroupVersion.WithKind("Secret"), &corev1.Secret{}, secret.GetAttrs, merge(meta, same("type"))},
		{corev1.SchemeGroupVersion.WithKind("Service"), &corev1.Service{}, service.GetAttrs, merge(meta, same("spec.clusterIP", "spec.type"))},
		{corev1.SchemeGroupVersion.WithKind("Event"), &corev1.Event{}, event.GetAttrs, merge(meta, same(
			"involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid",
			"involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath",
			"reason", "reportingComponent", "source", "type"))},
		// events.k8s.io/v1 is served over the core/v1 storage: its names
		// map onto the core fields.
		{eventsv1.SchemeGroupVersion.WithKind("Event"), &corev1.Event{}, event.GetAttrs, merge(meta, same("reason", "source", "type"), map[string]string{
			"regarding.kind":            "involvedObject.kind",
			"regarding.namespace":       "involvedObject.namespace",
			"regarding.name":            "involvedObject.name",
			"regarding.uid":             "involvedObject.uid",
			"regarding.apiVersion":      "involvedObject.apiVersion",
			"regarding.resourceVersion": "involvedObject.resourceVersion",
			"regarding.fieldPath":       "involvedObject.fieldPath",
			"reportingController":       "reportingComponent",
		})},
		{batchv1.SchemeGroupVersion.WithKind("Job"), &batchv1.Job{}, job.GetAttrs, merge(meta, same("status.successful"))},
		{certificatesv1.SchemeGroupVersion.WithKind("CertificateSigningRequest"), &certificatesv1.CertificateSigningRequest{}, certificatesigningrequest.GetAttrs, same("metadata.name", "spec.signerName")},
		{certificatesv1.SchemeGroupVersion.WithKind("ClusterTrustBundle"), &certificatesv1.ClusterTrustBundle{}, clustertrustbundle.GetAttrs, same("metadata.name", "spec.signerName")},
		{certificatesv1.SchemeGroupVersion.WithKind("PodCertificateRequest"), &certificatesv1.PodCertificateRequest{}, podcertificaterequest.GetAttrs, same("metadata.name", "spec.signerName", "spec.podName", "spec.nodeName")},
		{resourcev1.SchemeGroupVersion.WithKind("ResourceSlice"), &resourcev1.ResourceSlice{}, resourceslice.GetAttrs, same("metadata.name", resourcev1.ResourceSliceSelectorNodeName, resourcev1.ResourceSliceSelectorDriver, resourcev1.ResourceSliceSelectorPoolName)},
		{storagemigrationv1.SchemeGroupVersion.WithKind("StorageVersionMigration"), &storagemigrationv1.StorageVersionMigration{}, nil, meta},
	}
	// Labels accepted but not in GetAttrs, as upstream: they match only an
	// empty value.
	unoffered := map[schema.GroupVersionKind]map[string]bool{
		corev1.SchemeGroupVersion.WithKind("Pod"): {"status.podIPs": true},
	}
	for _, tt := range tests {
		var offered map[string]bool
		if tt.attrs != nil {
			_, fs, err := tt.attrs(tt.obj)
			if err != nil {
				t.Fatalf("%s: %v", tt.gvk, err)
			}
			offered = map[string]bool{}
			for f := range fs {
				offered[f] = true
			}
		}
		for label, want := range tt.labels {
			got, _, err := scheme.ConvertFieldLabel(tt.gvk, label, "x")
			switch {
			case err != nil:
				t.Errorf("%s: field selector %q refused: %v", tt.gvk, label, err)
			case got != want:
				t.Errorf("%s: field selector %q selects %q, want %q", tt.gvk, label, got, want)
			case offered != nil && !offered[got] && !unoffered[tt.gvk][label]:
				t.Errorf("%s: field selector %q selects %q, which the storage does not offer", tt.gvk, label, got)
			}
		}
		if _, _, err := scheme.ConvertFieldLabel(tt.gvk, "spec.nonexistent", "x"); err == nil {
			t.Errorf("%s: field selector spec.nonexistent accepted", tt.gvk)
		}
	}
}
