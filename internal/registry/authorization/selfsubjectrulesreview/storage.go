// Package selfsubjectrulesreview serves authorization.k8s.io/v1
// selfsubjectrulesreviews: POST lists what the requester may do in a
// namespace (kubectl auth can-i --list). Nothing is stored.
package selfsubjectrulesreview

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/authorization/subjectaccessreview"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

var kind = authorizationv1.SchemeGroupVersion.WithKind("SelfSubjectRulesReview")

// REST answers SelfSubjectRulesReviews from resolver.
type REST struct {
	subjectaccessreview.Meta
	resolver authorizer.RuleResolver
}

var (
	_ rest.Creater                  = (*REST)(nil)
	_ rest.Scoper                   = (*REST)(nil)
	_ rest.GroupVersionKindProvider = (*REST)(nil)
)

// NewStorage returns the create-only storage of "selfsubjectrulesreviews".
func NewStorage(resolver authorizer.RuleResolver) map[string]rest.Storage {
	meta := subjectaccessreview.Meta{Kind: kind, NewObject: func() runtime.Object { return &authorizationv1.SelfSubjectRulesReview{} }}
	return map[string]rest.Storage{"selfsubjectrulesreviews": &REST{Meta: meta, resolver: resolver}}
}

// Create lists the requester's rules in spec.namespace. Like upstream the
// answer carries only the status; a resolver error is reported in
// status.evaluationError next to whatever rules were found.
func (r *REST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	review, ok := obj.(*authorizationv1.SelfSubjectRulesReview)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a SelfSubjectRulesReview: %T", obj))
	}
	u, ok := request.UserFrom(ctx)
	if !ok {
		return nil, apierrors.NewBadRequest("no user present on request")
	}
	namespace := review.Spec.Namespace
	if namespace == "" {
		return nil, apierrors.NewBadRequest("no namespace on request")
	}
	if createValidation != nil {
		if err := createValidation(ctx, review.DeepCopyObject()); err != nil {
			return nil, err
		}
	}
	resourceRules, nonResourceRules, incomplete, err := r.resolver.RulesFor(ctx, u, namespace)
	out := &authorizationv1.SelfSubjectRulesReview{
		Status: authorizationv1.SubjectRulesReviewStatus{
			// never null: both lists are required fields on the wire
			ResourceRules:    make([]authorizationv1.ResourceRule, 0, len(resourceRules)),
			NonResourceRules: make([]authorizationv1.NonResourceRule, 0, len(nonResourceRules)),
			Incomplete:       incomplete,
		},
	}
	for _, rr := range resourceRules {
		out.Status.ResourceRules = append(out.Status.ResourceRules, authorizationv1.ResourceRule{
			Verbs: rr.Verbs, APIGroups: rr.APIGroups, Resources: rr.Resources, ResourceNames: rr.ResourceNames,
		})
	}
	for _, nr := range nonResourceRules {
		out.Status.NonResourceRules = append(out.Status.NonResourceRules, authorizationv1.NonResourceRule{
			Verbs: nr.Verbs, NonResourceURLs: nr.NonResourceURLs,
		})
	}
	if err != nil {
		out.Status.EvaluationError = err.Error()
	}
	return out, nil
}
