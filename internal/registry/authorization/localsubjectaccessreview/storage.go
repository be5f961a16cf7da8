// Package localsubjectaccessreview serves authorization.k8s.io/v1
// localsubjectaccessreviews: a SubjectAccessReview limited to resources of
// the namespace it is posted in, so namespace admins can be allowed to ask.
// Nothing is stored.
package localsubjectaccessreview

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

var kind = authorizationv1.SchemeGroupVersion.WithKind("LocalSubjectAccessReview")

// REST answers LocalSubjectAccessReviews with authz.
type REST struct {
	subjectaccessreview.Meta
	authz authorizer.Authorizer
}

var (
	_ rest.Creater                  = (*REST)(nil)
	_ rest.Scoper                   = (*REST)(nil)
	_ rest.GroupVersionKindProvider = (*REST)(nil)
)

// NewStorage returns the create-only storage of "localsubjectaccessreviews".
func NewStorage(authz authorizer.Authorizer) map[string]rest.Storage {
	meta := subjectaccessreview.Meta{Kind: kind, Namespaced: true, NewObject: func() runtime.Object { return &authorizationv1.LocalSubjectAccessReview{} }}
	return map[string]rest.Storage{"localsubjectaccessreviews": &REST{Meta: meta, authz: authz}}
}

// Create validates the review, checks it names the request's namespace,
// asks the authorizer and returns the review with its status filled.
func (r *REST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	sar, ok := obj.(*authorizationv1.LocalSubjectAccessReview)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a LocalSubjectAccessReview: %T", obj))
	}
	if errs := validation.ValidateLocalSubjectAccessReview(sar); len(errs) > 0 {
		return nil, apierrors.NewInvalid(kind.GroupKind(), "", errs)
	}
	namespace := request.NamespaceValue(ctx)
	if namespace == "" {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("namespace is required on this type: %v", namespace))
	}
	if namespace != sar.Namespace {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("spec.resourceAttributes.namespace must match namespace: %v", namespace))
	}
	status, err := subjectaccessreview.Decide(ctx, r.authz, sar, createValidation, subjectaccessreview.SpecUser(sar.Spec), sar.Spec.ResourceAttributes, sar.Spec.NonResourceAttributes)
	if err != nil {
		return nil, err
	}
	sar.Status = status
	return sar, nil
}
