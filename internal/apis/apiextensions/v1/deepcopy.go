package v1

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/runtime"
)

// deepCopyJSON copies a value by a JSON round trip: CRDs are few and
// small, and the schema types are recursive enough that a hand-written
// copy would be a large surface for mistakes.
func deepCopyJSON[T any](in *T) *T {
	if in == nil {
		return nil
	}
	data, err := json.Marshal(in)
	if err != nil {
		panic(err)
	}
	out := new(T)
	if err := json.Unmarshal(data, out); err != nil {
		panic(err)
	}
	return out
}

// DeepCopy returns a copy of in.
func (in *CustomResourceDefinition) DeepCopy() *CustomResourceDefinition { return deepCopyJSON(in) }

// DeepCopyObject implements runtime.Object.
func (in *CustomResourceDefinition) DeepCopyObject() runtime.Object { return in.DeepCopy() }

// DeepCopy returns a copy of in.
func (in *CustomResourceDefinitionList) DeepCopy() *CustomResourceDefinitionList {
	return deepCopyJSON(in)
}

// DeepCopyObject implements runtime.Object.
func (in *CustomResourceDefinitionList) DeepCopyObject() runtime.Object { return in.DeepCopy() }

// DeepCopy returns a copy of in.
func (in *JSONSchemaProps) DeepCopy() *JSONSchemaProps { return deepCopyJSON(in) }
