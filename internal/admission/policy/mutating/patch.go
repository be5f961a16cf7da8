package mutating

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/kapi-dev/kapi/internal/admission/policy"
)

// applyConfiguration merges the Object an applyConfiguration expression
// returned into obj as server-side apply merges (list and map types from
// the kind's schema), and returns the merged content.
func applyConfiguration(tc managedfields.TypeConverter, obj map[string]any, gvk schema.GroupVersionKind, v ref.Val) (map[string]any, error) {
	x, err := policy.ToJSON(v)
	if err != nil {
		return nil, fmt.Errorf("type mismatch: %w", err)
	}
	m, ok := x.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("invalid return type: %T", x)
	}
	patch := &unstructured.Unstructured{Object: m}
	patch.SetGroupVersionKind(gvk)
	live := &unstructured.Unstructured{Object: obj}
	patchTyped, err := tc.ObjectToTyped(patch)
	if err != nil {
		return nil, fmt.Errorf("error applying patch: failed to convert patch object to typed object: %w", err)
	}
	liveTyped, err := tc.ObjectToTyped(live, typed.AllowDuplicates)
	if err != nil {
		return nil, fmt.Errorf("error applying patch: failed to convert original object to typed object: %w", err)
	}
	merged, err := liveTyped.Merge(patchTyped)
	if err != nil {
		return nil, fmt.Errorf("error applying patch: failed to merge patch: %w", err)
	}
	out, err := tc.TypedToObject(merged)
	if err != nil {
		return nil, fmt.Errorf("error applying patch: failed to convert typed object to object: %w", err)
	}
	u, ok := out.(*unstructured.Unstructured)
	if !ok {
		return runtime.DefaultUnstructuredConverter.ToUnstructured(out)
	}
	return u.Object, nil
}

// jsonPatch applies the JSONPatch list a jsonPatch expression returned.
func jsonPatch(obj map[string]any, v ref.Val) (map[string]any, error) {
	l, ok := v.(traits.Lister)
	if !ok {
		return nil, errors.New("type mismatch: JSONPatchType.expression should evaluate to array")
	}
	x, err := policy.ToJSON(l)
	if err != nil {
		return nil, fmt.Errorf("JSONPath valueExpression evaluated to a type that could not marshal to JSON: %w", err)
	}
	ops, err := json.Marshal(x)
	if err != nil {
		return nil, fmt.Errorf("JSONPath valueExpression evaluated to a type that could not marshal to JSON: %w", err)
	}
	p, err := jsonpatch.DecodePatch(ops)
	if err != nil {
		return nil, fmt.Errorf("failed to create JSON patch: %w", err)
	}
	doc, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	patched, err := p.Apply(doc)
	if err != nil {
		return nil, fmt.Errorf("JSON Patch: %w", err)
	}
	var out map[string]any
	if err := utiljson.Unmarshal(patched, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// writeBack replaces obj's content with m, in place (the request's
// handler keeps the object it passed to admission).
func writeBack(obj runtime.Object, m map[string]any) error {
	if u, ok := obj.(runtime.Unstructured); ok {
		u.SetUnstructuredContent(m)
		return nil
	}
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return fmt.Errorf("cannot mutate %T", obj)
	}
	fresh := reflect.New(v.Elem().Type())
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, fresh.Interface()); err != nil {
		return err
	}
	v.Elem().Set(fresh.Elem())
	return nil
}
