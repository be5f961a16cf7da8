package subjectaccessreview

import (
	"context"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Meta is what a review storage says about itself; the authorization
// reviews embed it and add only their Create.
type Meta struct {
	Kind       schema.GroupVersionKind
	Namespaced bool
	NewObject  func() runtime.Object
}

// New returns an empty review.
func (m Meta) New() runtime.Object { return m.NewObject() }

// Destroy has nothing to release: nothing is stored.
func (Meta) Destroy() {}

// NamespaceScoped says whether the review is posted in a namespace.
func (m Meta) NamespaceScoped() bool { return m.Namespaced }

// GroupVersionKind pins the kind whatever group serves the storage.
func (m Meta) GroupVersionKind(schema.GroupVersion) schema.GroupVersionKind { return m.Kind }

// Decide is what every access review does once its own checks passed:
// admission on a copy of obj, then the authorizer's decision about u,
// as a status. Only admission fails the request; the authorizer's error
// is reported in status.evaluationError.
func Decide(ctx context.Context, authz authorizer.Authorizer, obj runtime.Object, createValidation rest.ValidateObjectFunc,
	u user.Info, ra *authorizationv1.ResourceAttributes, nra *authorizationv1.NonResourceAttributes) (authorizationv1.SubjectAccessReviewStatus, error) {
	if createValidation != nil {
		if err := createValidation(ctx, obj.DeepCopyObject()); err != nil {
			return authorizationv1.SubjectAccessReviewStatus{}, err
		}
	}
	return status(authz.Authorize(ctx, attributes(u, ra, nra))), nil
}

// SpecUser is the subject a SubjectAccessReview or
// LocalSubjectAccessReview asks about.
func SpecUser(spec authorizationv1.SubjectAccessReviewSpec) user.Info {
	var extra map[string][]string
	if spec.Extra != nil {
		extra = make(map[string][]string, len(spec.Extra))
		for k, v := range spec.Extra {
			extra[k] = []string(v)
		}
	}
	return &user.DefaultInfo{Name: spec.User, UID: spec.UID, Groups: spec.Groups, Extra: extra}
}

// attributes are the authorizer attributes of a review about u: its
// resource attributes if set, else its non-resource attributes (exactly
// one is set once the review is valid). Label and field selectors are not
// passed on: kapi's authorizers do not read them.
func attributes(u user.Info, ra *authorizationv1.ResourceAttributes, nra *authorizationv1.NonResourceAttributes) authorizer.Attributes {
	if ra != nil {
		version := ra.Version
		if version == "" {
			// an unset version asks about every version
			version = "*"
		}
		return authorizer.Attributes{
			User:            u,
			Verb:            ra.Verb,
			Namespace:       ra.Namespace,
			APIGroup:        ra.Group,
			APIVersion:      version,
			Resource:        ra.Resource,
			Subresource:     ra.Subresource,
			Name:            ra.Name,
			ResourceRequest: true,
		}
	}
	a := authorizer.Attributes{User: u}
	if nra != nil {
		a.Verb, a.Path = nra.Verb, nra.Path
	}
	return a
}

// status is the answer of an access review to a decision.
func status(decision authorizer.Decision, reason string, err error) authorizationv1.SubjectAccessReviewStatus {
	s := authorizationv1.SubjectAccessReviewStatus{
		Allowed: decision == authorizer.DecisionAllow,
		Denied:  decision == authorizer.DecisionDeny,
		Reason:  reason,
	}
	if err != nil {
		s.EvaluationError = err.Error()
	}
	return s
}
