package markers

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLookupField(t *testing.T) {
	tests := []struct {
		typ, field string
		want       Field
	}{
		{"io.k8s.api.core.v1.PodSpec", "containers", Field{ListType: "map", ListMapKeys: []string{"name"}}},
		{"io.k8s.api.core.v1.Container", "ports", Field{ListType: "map", ListMapKeys: []string{"containerPort", "protocol"}, Optional: true}},
		{"io.k8s.api.core.v1.ContainerPort", "protocol", Field{Optional: true, Default: `"TCP"`}},
		{"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "managedFields", Field{ListType: "atomic", Optional: true}},
		{"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "finalizers", Field{ListType: "set", Optional: true}},
		{"io.k8s.api.apps.v1.DeploymentSpec", "selector", Field{Required: true}},
		{"io.k8s.api.core.v1.ReplicationControllerSpec", "replicas", Field{Optional: true, Default: "1"}},
		{"io.k8s.api.core.v1.PodSpec", "nodeSelector", Field{MapType: "atomic", Optional: true}},
		{"io.k8s.api.core.v1.PersistentVolumeSpec", "claimRef", Field{StructType: "granular", Optional: true}},
		// +default=ref(AzureDataDiskCachingReadWrite) is the constant's value.
		{"io.k8s.api.core.v1.AzureDiskVolumeSource", "cachingMode", Field{Optional: true, Default: `"ReadWrite"`}},
		// A default that is a JSON object.
		{"io.k8s.api.scheduling.v1alpha3.PodGroupSpec", "disruptionMode", Field{Optional: true, Default: `{"single": {}}`}},
	}
	for _, tt := range tests {
		typ, ok := Lookup(tt.typ)
		if !ok {
			t.Errorf("Lookup(%s): not found", tt.typ)
			continue
		}
		got := typ.Fields[tt.field]
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s.%s (-want +got):\n%s", tt.typ, tt.field, diff)
		}
	}
}

func TestLookupType(t *testing.T) {
	tests := []struct {
		typ            string
		wantStructType string
	}{
		{"io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector", "atomic"},
		{"io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference", "atomic"},
		{"io.k8s.api.core.v1.ObjectFieldSelector", "atomic"},
		{"io.k8s.api.rbac.v1.RoleRef", "atomic"},
		{"io.k8s.api.core.v1.PodSpec", ""},
	}
	for _, tt := range tests {
		typ, ok := Lookup(tt.typ)
		if !ok {
			t.Errorf("Lookup(%s): not found", tt.typ)
			continue
		}
		if typ.StructType != tt.wantStructType {
			t.Errorf("Lookup(%s).StructType = %q, want %q", tt.typ, typ.StructType, tt.wantStructType)
		}
	}
}

func TestLookupMissing(t *testing.T) {
	// Types without any marker, and names that are not definitions, are
	// absent rather than present and empty.
	for _, name := range []string{"", "io.k8s.api.core.v1.NoSuchType", "k8s.io/api/core/v1.Pod"} {
		if typ, ok := Lookup(name); ok {
			t.Errorf("Lookup(%q) = %+v, want absent", name, typ)
		}
	}
}
