package install

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
)

func TestInstall(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := Install(scheme); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"CustomResourceDefinition", "CustomResourceDefinitionList"} {
		if !scheme.Recognizes(apiextensionsv1.SchemeGroupVersion.WithKind(kind)) {
			t.Errorf("scheme does not know %s", kind)
		}
	}
	if got := scheme.PrioritizedVersionsForGroup(apiextensionsv1.GroupName); len(got) != 1 || got[0] != apiextensionsv1.SchemeGroupVersion {
		t.Errorf("version priority = %v", got)
	}
	// A decoded body gets the v1 defaults.
	body := []byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.example.com"},
		"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget"},"versions":[{"name":"v1","served":true,"storage":true}]}}`)
	obj, gvk, err := serializer.NewCodecFactory(scheme).UniversalDecoder(apiextensionsv1.SchemeGroupVersion).Decode(body, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *gvk != (schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}) {
		t.Errorf("decoded as %v", gvk)
	}
	crd := obj.(*apiextensionsv1.CustomResourceDefinition)
	if crd.Spec.Names.ListKind != "WidgetList" || crd.Spec.Conversion == nil || len(crd.Status.StoredVersions) != 1 {
		t.Errorf("defaults not applied: %+v", crd)
	}
}

func TestInstallTwice(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := Install(scheme); err != nil {
		t.Fatal(err)
	}
	if err := Install(scheme); err != nil {
		t.Errorf("second Install: %v", err)
	}
}
