package policy

import (
	"errors"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/admission"
)

// Denied is the error a policy answers a request with: a Forbidden status
// naming the object ("<resource> \"<name>\" is forbidden: <message>"),
// with reason and code from the policy (Invalid, 422, when unset) and
// the message repeated as a cause, as upstream.
func Denied(a *admission.Attributes, message string, reason metav1.StatusReason) error {
	err := apierrors.NewForbidden(a.Resource.GroupResource(), requestName(a), errors.New(message))
	if reason == "" {
		reason = metav1.StatusReasonInvalid
	}
	err.ErrStatus.Reason = reason
	err.ErrStatus.Code = ReasonToCode(reason)
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{Message: message})
	return err
}

// ReasonToCode is the HTTP status of a validation's reason.
func ReasonToCode(r metav1.StatusReason) int32 {
	switch r {
	case metav1.StatusReasonForbidden:
		return http.StatusForbidden
	case metav1.StatusReasonUnauthorized:
		return http.StatusUnauthorized
	case metav1.StatusReasonRequestEntityTooLarge:
		return http.StatusRequestEntityTooLarge
	}
	return http.StatusUnprocessableEntity
}

// requestName is the name upstream's admission errors give: the request's
// name, else the object's name or generateName, else "Unknown".
func requestName(a *admission.Attributes) string {
	if a.Name != "" {
		return a.Name
	}
	if a.Object == nil {
		return "Unknown"
	}
	acc, err := meta.Accessor(a.Object)
	if err != nil {
		return "Unknown/errorGettingName"
	}
	if n := acc.GetName(); n != "" {
		return n
	}
	if n := acc.GetGenerateName(); n != "" {
		return n
	}
	return "Unknown"
}
