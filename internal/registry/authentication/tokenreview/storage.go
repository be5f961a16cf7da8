// Package tokenreview serves authentication.k8s.io/v1 tokenreviews: POST
// runs a bearer token through the server's token authenticators and
// answers who it belongs to. Nothing is stored.
package tokenreview

import (
	"context"
	"errors"
	"fmt"
	"slices"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/auth/authenticator"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

var kind = authenticationv1.SchemeGroupVersion.WithKind("TokenReview")

// errAudiences is upstream's answer when an authenticator accepted a token
// for none of the audiences asked: a server fault, not the client's.
var errAudiences = apierrors.NewInternalError(errors.New("error validating audiences"))

// REST answers TokenReviews with auth.
type REST struct {
	auth         authenticator.Token
	apiAudiences []string
}

var (
	_ rest.Creater                  = (*REST)(nil)
	_ rest.Scoper                   = (*REST)(nil)
	_ rest.GroupVersionKindProvider = (*REST)(nil)
)

// NewStorage returns the create-only storage of "tokenreviews". auth is
// the server's token authenticator chain (a nil one authenticates
// nothing); apiAudiences (--api-audiences) are the audiences of a review
// that asks for none.
func NewStorage(auth authenticator.Token, apiAudiences []string) map[string]rest.Storage {
	return map[string]rest.Storage{"tokenreviews": &REST{auth: auth, apiAudiences: slices.Clone(apiAudiences)}}
}

// New returns an empty TokenReview.
func (*REST) New() runtime.Object { return &authenticationv1.TokenReview{} }

// Destroy has nothing to release.
func (*REST) Destroy() {}

// NamespaceScoped is false.
func (*REST) NamespaceScoped() bool { return false }

// GroupVersionKind pins the kind whatever group serves the storage.
func (*REST) GroupVersionKind(schema.GroupVersion) schema.GroupVersionKind { return kind }

// Create authenticates spec.token for spec.audiences (the API audiences
// when empty) and returns the review with its status filled.
func (r *REST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	review, ok := obj.(*authenticationv1.TokenReview)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a TokenReview: %T", obj))
	}
	if ns := request.NamespaceValue(ctx); ns != "" {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("namespace is not allowed on this type: %v", ns))
	}
	// a 400 from the registry as upstream, not a 422 from validation
	if review.Spec.Token == "" {
		return nil, apierrors.NewBadRequest("token is required for TokenReview in authentication")
	}
	if createValidation != nil {
		if err := createValidation(ctx, review.DeepCopyObject()); err != nil {
			return nil, err
		}
	}
	if r.auth == nil {
		return review, nil
	}

	auds := review.Spec.Audiences
	if len(auds) == 0 {
		auds = r.apiAudiences
	}
	rctx, done := reviewContext(ctx, auds)
	defer done()
	resp, ok, err := r.auth.AuthenticateToken(rctx, review.Spec.Token)
	review.Status.Authenticated = ok
	if err != nil {
		review.Status.Error = err.Error()
	}
	if len(auds) > 0 && resp != nil && !intersects(auds, resp.Audiences) {
		return nil, errAudiences
	}
	if resp != nil && resp.User != nil {
		u := resp.User
		review.Status.User = authenticationv1.UserInfo{
			Username: u.GetName(),
			UID:      u.GetUID(),
			Groups:   u.GetGroups(),
			Extra:    make(map[string]authenticationv1.ExtraValue, len(u.GetExtra())),
		}
		for k, v := range u.GetExtra() {
			review.Status.User.Extra[k] = authenticationv1.ExtraValue(v)
		}
		review.Status.Audiences = resp.Audiences
	}
	return review, nil
}

// reviewContext is what the authenticators see: the caller's cancellation
// but none of its values, so the reviewer's own identity and audiences
// cannot leak into the review; only the review's audiences are set.
// done releases it.
func reviewContext(ctx context.Context, auds []string) (rctx context.Context, done func()) {
	rctx, cancel := context.WithCancel(context.Background())
	stop := context.AfterFunc(ctx, cancel)
	if len(auds) > 0 {
		rctx = authenticator.WithAudiences(rctx, auds)
	}
	return rctx, func() { stop(); cancel() }
}

func intersects(a, b []string) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}
