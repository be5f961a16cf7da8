package kapitest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

func thingCRD() *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "things.test.kapi.dev"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "test.kapi.dev",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: "Thing", ListKind: "ThingList", Plural: "things", Singular: "thing"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true, Storage: true, Schema: &apiextensionsv1.CustomResourceValidation{
					OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptrTo(true)},
				}},
				{Name: "v1beta1", Served: true, Schema: &apiextensionsv1.CustomResourceValidation{
					OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptrTo(true)},
				}},
			},
		},
	}
}

func ptrTo[T any](v T) *T { return &v }

// TestCRDs installs CRDs from a folder (YAML with two documents, JSON, and
// a file that is skipped) and from an object, and uses each custom
// resource right after Start: no waiting in the test.
func TestCRDs(t *testing.T) {
	obj := thingCRD()
	cfg := Start(t, WithCRDPaths(filepath.Join("testdata", "crds")), WithCRDs(obj))
	if obj.ResourceVersion != "" {
		t.Errorf("WithCRDs modified the caller's object")
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		gvr        schema.GroupVersionResource
		kind       string
		namespaced bool
	}{
		{schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}, "Widget", true},
		{schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gadgets"}, "Gadget", false},
		{schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "sprockets"}, "Sprocket", true},
		{schema.GroupVersionResource{Group: "test.kapi.dev", Version: "v1", Resource: "things"}, "Thing", true},
		{schema.GroupVersionResource{Group: "test.kapi.dev", Version: "v1beta1", Resource: "things"}, "Thing", true},
	}
	for _, tt := range tests {
		t.Run(tt.gvr.String(), func(t *testing.T) {
			u := &unstructured.Unstructured{}
			u.SetAPIVersion(tt.gvr.GroupVersion().String())
			u.SetKind(tt.kind)
			u.SetName("one-" + tt.gvr.Version)
			var ri dynamic.ResourceInterface = dyn.Resource(tt.gvr)
			if tt.namespaced {
				ri = dyn.Resource(tt.gvr).Namespace("default")
			}
			if _, err := ri.Create(context.Background(), u, metav1.CreateOptions{}); err != nil {
				t.Errorf("create %s: %v", tt.kind, err)
			}
		})
	}
}

func TestReadCRDPathErrors(t *testing.T) {
	tests := []struct {
		path string
		want string
	}{
		{filepath.Join("testdata", "bad"), "v1 ConfigMap is not an apiextensions.k8s.io/v1 CustomResourceDefinition"},
		{filepath.Join("testdata", "missing"), "no such file or directory"},
		{t.TempDir(), "no CustomResourceDefinition in its .yaml, .yml, .json files"},
	}
	for _, tt := range tests {
		_, err := readCRDPath(tt.path)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("readCRDPath(%s): %v, want an error containing %q", tt.path, err, tt.want)
		}
	}
}
