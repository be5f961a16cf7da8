package conversion

import (
	"errors"
	"fmt"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateConvertedObject refuses a converted object that is not the same
// object as its original.
func validateConvertedObject(in, out *unstructured.Unstructured) error {
	checks := []struct{ what, in, out string }{
		{"kind", in.GetKind(), out.GetKind()},
		{"name", in.GetName(), out.GetName()},
		{"namespace", in.GetNamespace(), out.GetNamespace()},
		{"UID", string(in.GetUID()), string(out.GetUID())},
	}
	for _, c := range checks {
		if c.in != c.out {
			return fmt.Errorf("must have the same %s: %v != %v", c.what, c.in, c.out)
		}
	}
	return nil
}

// restoreObjectMeta gives converted the metadata of original, except for the
// labels and annotations, which a webhook may change (they are validated
// when it did).
func restoreObjectMeta(original, converted *unstructured.Unstructured) error {
	raw, found := converted.Object["metadata"]
	if !found {
		return errors.New("missing metadata in converted object")
	}
	answered, ok := raw.(map[string]any)
	if !ok {
		return fmt.Errorf("invalid metadata of type %T in converted object", raw)
	}
	restored := map[string]any{}
	if m, found := original.Object["metadata"]; found {
		copied := runtime.DeepCopyJSONValue(m)
		if restored, ok = copied.(map[string]any); !ok {
			return fmt.Errorf("invalid metadata of type %T in input object", copied)
		}
	}
	for _, fld := range []string{"labels", "annotations"} {
		v, found := answered[fld]
		if !found || v == nil {
			delete(restored, fld)
			continue
		}
		if err := checkStringMap(fld, v, restored[fld]); err != nil {
			return err
		}
		restored[fld] = v
	}
	converted.Object["metadata"] = restored
	return nil
}

// checkStringMap checks the labels or annotations a webhook answered, and
// validates them if they differ from the original's.
func checkStringMap(fld string, answered, original any) error {
	got, ok := answered.(map[string]any)
	if !ok {
		return fmt.Errorf("invalid metadata.%s of type %T in converted object", fld, answered)
	}
	had, ok := original.(map[string]any)
	if !ok && original != nil {
		return fmt.Errorf("invalid metadata.%s of type %T in original object", fld, original)
	}
	changed := len(had) != len(got)
	strs := make(map[string]string, len(got))
	for k, v := range got {
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("metadata.%s[%s] must be a string, but is %T in converted object", fld, k, v)
		}
		if old, ok := had[k].(string); !ok || old != s {
			changed = true
		}
		strs[k] = s
	}
	if !changed {
		return nil
	}
	var errs field.ErrorList
	if fld == "labels" {
		errs = metav1validation.ValidateLabels(strs, field.NewPath("metadata", "labels"))
	} else {
		// Upstream reports annotations under "metadata.annotation".
		errs = apivalidation.ValidateAnnotations(strs, field.NewPath("metadata", "annotation"))
	}
	return errs.ToAggregate()
}
