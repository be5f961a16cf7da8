package controllers

import (
	"testing"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/apis/apiextensions/install"
	"github.com/kapi-dev/kapi/internal/registry/apiextensions/customresourcedefinition"
	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/storage/memory"
)

// TestWithCRDRegistry runs the controllers over the real CRD registry
// (its strategy, validation and status subresource): establish, then
// delete with the cleanup of instances.
func TestWithCRDRegistry(t *testing.T) {
	scheme := k8sruntime.NewScheme()
	if err := install.Install(scheme); err != nil {
		t.Fatal(err)
	}
	backend := memory.New()
	t.Cleanup(func() { _ = backend.Close() })
	storages, err := customresourcedefinition.NewStorage(scheme, jsonOptions{scheme: scheme, backend: backend})
	if err != nil {
		t.Fatal(err)
	}
	store := storages["customresourcedefinitions"].(*customresourcedefinition.REST).Store
	status := storages["customresourcedefinitions/status"].(rest.Updater)
	crs := newInstances("a/one")
	start(t, Config{CRDs: store, Status: status, Instances: func(string, string) rest.Storage { return crs }})

	crd := newCRD("widgets.example.com", "example.com", "widgets", "Widget")
	crd.Spec.Versions[0].Schema = &apiextv1.CustomResourceValidation{OpenAPIV3Schema: &apiextv1.JSONSchemaProps{Type: "object"}}
	create(t, store, crd)
	got := waitFor(t, store, crd.Name, func(crd *apiextv1.CustomResourceDefinition) bool {
		return established(crd)
	})
	if c, want := condition(got, apiextv1.NamesAccepted), "True NoConflicts: no conflicts found"; c != want {
		t.Errorf("NamesAccepted = %q, want %q", c, want)
	}
	deleteCRD(t, store, crd.Name)
	waitFor(t, store, crd.Name, nil)
	if keys := crs.keys(); len(keys) != 0 {
		t.Errorf("instances left: %v", keys)
	}
}
