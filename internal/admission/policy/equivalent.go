package policy

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/admission"
)

// AsMatched is a seen as the resource and kind it matched as: itself for
// its own, otherwise a copy with the objects converted to the matched
// version (custom resources only change apiVersion, as the webhooks' do).
// The request variable of the copy must come from RequestFor(a, m).
func AsMatched(a *admission.Attributes, m Match, scheme *runtime.Scheme) (*admission.Attributes, error) {
	if m.Resource == a.Resource && m.Kind == a.Kind {
		return a, nil
	}
	out := *a
	out.Resource, out.Kind = m.Resource, m.Kind
	var err error
	if out.Object, err = convertTo(a.Object, m, scheme); err != nil {
		return nil, err
	}
	if out.OldObject, err = convertTo(a.OldObject, m, scheme); err != nil {
		return nil, err
	}
	return &out, nil
}

func convertTo(obj runtime.Object, m Match, scheme *runtime.Scheme) (runtime.Object, error) {
	if obj == nil {
		return nil, nil
	}
	if u, ok := obj.(*unstructured.Unstructured); ok {
		c := u.DeepCopy()
		c.SetGroupVersionKind(m.Kind)
		return c, nil
	}
	if scheme == nil {
		return nil, fmt.Errorf("unable to convert to %v: no scheme", m.Kind)
	}
	out, err := scheme.ConvertToVersion(obj.DeepCopyObject(), m.Kind.GroupVersion())
	if err != nil {
		return nil, fmt.Errorf("unable to convert to %v: %w", m.Kind, err)
	}
	return out, nil
}
