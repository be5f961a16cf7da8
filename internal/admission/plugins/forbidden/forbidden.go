// Package forbidden builds the 403 Forbidden errors admission plugins
// answer, naming the object as upstream's admission errors do.
package forbidden

import (
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/kapi-dev/kapi/internal/admission"
)

// New wraps err in a Forbidden Status for the object of a. The name is
// the request's, else the object's name or generateName, else "Unknown".
// An error that already is Forbidden is returned unchanged.
func New(a *admission.Attributes, err error) error {
	if apierrors.IsForbidden(err) {
		return err
	}
	return apierrors.NewForbidden(a.Resource.GroupResource(), Name(a), err)
}

// Name is the name upstream's admission errors give the object of a.
func Name(a *admission.Attributes) string {
	if a.Name != "" {
		return a.Name
	}
	if a.Object == nil {
		return "Unknown"
	}
	accessor, err := meta.Accessor(a.Object)
	if err != nil {
		return "Unknown/errorGettingName"
	}
	if n := accessor.GetName(); n != "" {
		return n
	}
	if n := accessor.GetGenerateName(); n != "" {
		return n
	}
	return "Unknown"
}
