package handlers

import (
	"context"
	"fmt"
	"net/http"
	"reflect"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/kapi-dev/kapi/internal/endpoints/handlers/responsewriters"
)

// ApplyPatchTypes are the server-side apply content types, served by
// endpoints with a field manager. CBOR apply is not: kapi serves no CBOR.
func ApplyPatchTypes() []string {
	return []string{string(types.ApplyYAMLPatchType)}
}

func isApply(t types.PatchType) bool { return t == types.ApplyYAMLPatchType }

// apply merges the applied configuration into current (a new object when
// there is none: apply creates) through the field manager, which checks
// the body's apiVersion and kind, refuses managedFields in it, and fails
// with 409 on fields other managers own unless forced.
func (p *patcher) apply(ctx context.Context, current runtime.Object, exists bool) (runtime.Object, error) {
	applied := &unstructured.Unstructured{Object: map[string]any{}}
	if err := utilyaml.Unmarshal(p.patch, &applied.Object); err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
	}
	live := current
	if !exists {
		live = p.newObj()
	}
	obj, err := p.scope.FieldManager.Apply(live, applied, p.manager, p.force)
	if err != nil {
		return nil, applyError(err)
	}
	// Duplicate fields are only looked for once the apply succeeded, as
	// upstream: its errors come first.
	if p.directive != metav1.FieldValidationIgnore {
		if err := utilyaml.UnmarshalStrict(p.patch, &map[string]any{}); err != nil {
			if p.directive == metav1.FieldValidationStrict {
				return nil, apierrors.NewBadRequest(fmt.Sprintf("error strict decoding patch: %v", err))
			}
			addStrictDecodingWarnings(ctx, []error{err})
		}
	}
	if !exists {
		if err := refuseUIDOnCreate(obj, p); err != nil {
			return nil, err
		}
	}
	return p.asStored(obj)
}

// refuseUIDOnCreate: an applied configuration naming a uid addresses an
// object that existed; creating one instead would be wrong.
func refuseUIDOnCreate(obj runtime.Object, p *patcher) error {
	accessor, err := meta.Accessor(obj)
	if err != nil || accessor.GetUID() == "" {
		return nil
	}
	return apierrors.NewConflict(p.scope.Resource.GroupResource(), p.name,
		fmt.Errorf("uid mismatch: the provided object specified uid %s, and no existing object was found", accessor.GetUID()))
}

// asStored returns the field manager's result as the storage's type (it
// already is, the field manager converting to the hub), with the hub's
// defaults.
func (p *patcher) asStored(obj runtime.Object) (runtime.Object, error) {
	stored := p.newObj()
	if reflect.TypeOf(stored) != reflect.TypeOf(obj) {
		if err := p.scope.Convertor.Convert(obj, stored, nil); err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		obj = stored
	}
	p.scope.defaultHub(obj)
	return obj, nil
}

// applyError passes the field manager's API errors (conflicts, wrong
// version or kind, managedFields in the body) and reports the others (a
// body the schema does not know) as upstream does: a 500 with the
// message.
func applyError(err error) error {
	if responsewriters.IsAPIStatus(err) {
		return err
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusInternalServerError,
		Reason:  metav1.StatusReasonUnknown,
		Message: err.Error(),
	}}
}
