package validation

import (
	"encoding/json"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// FuzzValidate feeds client-sent CRD bodies to create and update
// validation, which must never panic.
func FuzzValidate(f *testing.F) {
	seed, _ := json.Marshal(validCRD())
	f.Add(seed)
	f.Add([]byte(`{"spec":{"versions":[{"name":"v1","storage":true,"schema":{"openAPIV3Schema":{"x-kubernetes-list-type":"map","items":[{}],"additionalProperties":true}}}],"conversion":{"strategy":"Webhook","webhook":{"clientConfig":{"service":{"path":"//"}}}}}}`))
	f.Add([]byte(`{"spec":{"versions":[{"name":"v1","selectableFields":[{"jsonPath":".a.b"},{"jsonPath":"."}],"schema":{"openAPIV3Schema":{"properties":{"a":{"additionalProperties":{"type":"string"}}}}}}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var crd apiextensionsv1.CustomResourceDefinition
		if json.Unmarshal(data, &crd) != nil {
			return
		}
		ValidateCustomResourceDefinition(&crd)
		ValidateCustomResourceDefinitionUpdate(&crd, validCRD())
		ValidateCustomResourceDefinitionUpdate(validCRD(), &crd)
	})
}
