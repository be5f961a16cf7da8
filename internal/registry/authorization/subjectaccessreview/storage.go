// Package subjectaccessreview serves authorization.k8s.io/v1
// subjectaccessreviews: POST asks the server's authorizer whether a given
// user may do something, and the answer comes back in status. Nothing is
// stored. The package also holds what the other authorization reviews
// share (Meta, Decide).
package subjectaccessreview

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/apis/authorization/validation"
	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

var kind = authorizationv1.SchemeGroupVersion.WithKind("SubjectAccessReview")

// REST answers SubjectAccessReviews with authz.
type REST struct {
	Meta
	authz authorizer.Authorizer
}

var (
	_ rest.Creater                  = (*REST)(nil)
	_ rest.Scoper                   = (*REST)(nil)
	_ rest.GroupVersionKindProvider = (*REST)(nil)
)

// NewStorage returns the create-only storage of "subjectaccessreviews".
func NewStorage(authz authorizer.Authorizer) map[string]rest.Storage {
	meta := Meta{Kind: kind, NewObject: func() runtime.Object { return &authorizationv1.SubjectAccessReview{} }}
	return map[string]rest.Storage{"subjectaccessreviews": &REST{Meta: meta, authz: authz}}
}

// Create validates the review, asks the authorizer and returns the review
// with its status filled.
func (r *REST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	sar, ok := obj.(*authorizationv1.SubjectAccessReview)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a SubjectAccessReview: %T", obj))
	}
	if errs := validation.ValidateSubjectAccessReview(sar); len(errs) > 0 {
		return nil, apierrors.NewInvalid(kind.GroupKind(), "", errs)
	}
	status, err := Decide(ctx, r.authz, sar, createValidation, SpecUser(sar.Spec), sar.Spec.ResourceAttributes, sar.Spec.NonResourceAttributes)
	if err != nil {
		return nil, err
	}
	sar.Status = status
	return sar, nil
}
