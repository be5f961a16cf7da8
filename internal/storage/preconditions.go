package storage

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// NewUIDPreconditions requires the object to have the given UID.
func NewUIDPreconditions(uid string) *Preconditions {
	u := types.UID(uid)
	return &Preconditions{UID: &u}
}

// Check fails with ErrCodeResourceVersionConflicts when obj does not meet the
// preconditions. A nil receiver accepts every object. The message follows
// upstream so clients see the same text.
func (p *Preconditions) Check(key string, obj runtime.Object) error {
	if p == nil {
		return nil
	}
	accessor, err := meta.Accessor(obj)
	if err != nil {
		return &Error{Code: ErrCodeInvalidObj, Key: key, Message: "cannot check preconditions", Err: err}
	}
	if p.UID != nil && *p.UID != accessor.GetUID() {
		return NewError(ErrCodeResourceVersionConflicts, key, 0, fmt.Sprintf(
			"Precondition failed: UID in precondition: %v, UID in object meta: %v", *p.UID, accessor.GetUID()))
	}
	if p.ResourceVersion != nil && *p.ResourceVersion != accessor.GetResourceVersion() {
		return NewError(ErrCodeResourceVersionConflicts, key, 0, fmt.Sprintf(
			"Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v",
			*p.ResourceVersion, accessor.GetResourceVersion()))
	}
	return nil
}
