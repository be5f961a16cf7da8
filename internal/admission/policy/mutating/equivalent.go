package mutating

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/admission/policy"
)

// MatchEquivalents makes matchPolicy Equivalent match the resources
// mapper finds equivalent; the policy mutates the object converted to
// the matched version, and the result is converted back, as upstream.
func (p *Plugin) MatchEquivalents(mapper policy.EquivalentMapper, scheme *runtime.Scheme) {
	p.matcher.Equivalents, p.scheme = mapper, scheme
}

// convertBack puts obj (a mutated object in a matched version) into
// a.Object, in a.Object's own version.
func convertBack(obj runtime.Object, a *admission.Attributes, scheme *runtime.Scheme) error {
	if dst, ok := a.Object.(*unstructured.Unstructured); ok {
		src, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return fmt.Errorf("unable to convert %T back to %v", obj, a.Kind)
		}
		gvk := dst.GroupVersionKind()
		dst.Object = src.DeepCopy().Object
		dst.SetGroupVersionKind(gvk)
		return nil
	}
	if scheme == nil {
		return fmt.Errorf("unable to convert back to %v: no scheme", a.Kind)
	}
	gvk := a.Object.GetObjectKind().GroupVersionKind()
	if err := scheme.Convert(obj, a.Object, nil); err != nil {
		return fmt.Errorf("unable to convert back to %v: %w", a.Kind, err)
	}
	a.Object.GetObjectKind().SetGroupVersionKind(gvk)
	return nil
}
