// Package selfsubjectreview serves authentication.k8s.io/v1
// selfsubjectreviews: POST answers who the requester is, as the server
// authenticated it (kubectl auth whoami). Nothing is stored.
package selfsubjectreview

import (
	"context"
	"fmt"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

var kind = authenticationv1.SchemeGroupVersion.WithKind("SelfSubjectReview")

// REST answers SelfSubjectReviews from the request's user.
type REST struct {
	now func() time.Time
}

var (
	_ rest.Creater                  = (*REST)(nil)
	_ rest.Scoper                   = (*REST)(nil)
	_ rest.GroupVersionKindProvider = (*REST)(nil)
)

// NewStorage returns the create-only storage of "selfsubjectreviews".
func NewStorage() map[string]rest.Storage {
	return map[string]rest.Storage{"selfsubjectreviews": &REST{now: time.Now}}
}

// New returns an empty SelfSubjectReview.
func (*REST) New() runtime.Object { return &authenticationv1.SelfSubjectReview{} }

// Destroy has nothing to release.
func (*REST) Destroy() {}

// NamespaceScoped is false.
func (*REST) NamespaceScoped() bool { return false }

// GroupVersionKind pins the kind whatever group serves the storage.
func (*REST) GroupVersionKind(schema.GroupVersion) schema.GroupVersionKind { return kind }

// Create returns a new review whose status.userInfo is the requester, as
// upstream: the body is only checked by admission.
func (r *REST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	if createValidation != nil {
		if err := createValidation(ctx, obj.DeepCopyObject()); err != nil {
			return nil, err
		}
	}
	if _, ok := obj.(*authenticationv1.SelfSubjectReview); !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a SelfSubjectReview: %T", obj))
	}
	u, ok := request.UserFrom(ctx)
	if !ok {
		return nil, apierrors.NewBadRequest("no user present on request")
	}
	extra := u.GetExtra()
	out := &authenticationv1.SelfSubjectReview{
		ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(r.now())},
		Status: authenticationv1.SelfSubjectReviewStatus{
			UserInfo: authenticationv1.UserInfo{
				Username: u.GetName(),
				UID:      u.GetUID(),
				Groups:   u.GetGroups(),
				Extra:    make(map[string]authenticationv1.ExtraValue, len(extra)),
			},
		},
	}
	for k, v := range extra {
		out.Status.UserInfo.Extra[k] = authenticationv1.ExtraValue(v)
	}
	return out, nil
}
