// Package selfsubjectaccessreview serves authorization.k8s.io/v1
// selfsubjectaccessreviews: POST asks whether the requester may do
// something (kubectl auth can-i). Nothing is stored.
package selfsubjectaccessreview

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/apis/authorization/validation"
	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/authorization/subjectaccessreview"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

var kind = authorizationv1.SchemeGroupVersion.WithKind("SelfSubjectAccessReview")

// REST answers SelfSubjectAccessReviews with authz.
type REST struct {
	subjectaccessreview.Meta
	authz authorizer.Authorizer
}

var (
	_ rest.Creater                  = (*REST)(nil)
	_ rest.Scoper                   = (*REST)(nil)
	_ rest.GroupVersionKindProvider = (*REST)(nil)
)

// NewStorage returns the create-only storage of "selfsubjectaccessreviews".
func NewStorage(authz authorizer.Authorizer) map[string]rest.Storage {
	meta := subjectaccessreview.Meta{Kind: kind, NewObject: func() runtime.Object { return &authorizationv1.SelfSubjectAccessReview{} }}
	return map[string]rest.Storage{"selfsubjectaccessreviews": &REST{Meta: meta, authz: authz}}
}

// Create validates the review, asks the authorizer about the requester and
// returns the review with its status filled.
func (r *REST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	sar, ok := obj.(*authorizationv1.SelfSubjectAccessReview)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a SelfSubjectAccessReview: %T", obj))
	}
	if errs := validation.ValidateSelfSubjectAccessReview(sar); len(errs) > 0 {
		return nil, apierrors.NewInvalid(kind.GroupKind(), "", errs)
	}
	u, ok := request.UserFrom(ctx)
	if !ok {
		return nil, apierrors.NewBadRequest("no user present on request")
	}
	status, err := subjectaccessreview.Decide(ctx, r.authz, sar, createValidation, u, sar.Spec.ResourceAttributes, sar.Spec.NonResourceAttributes)
	if err != nil {
		return nil, err
	}
	sar.Status = status
	return sar, nil
}
