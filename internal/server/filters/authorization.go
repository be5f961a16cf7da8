package filters

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

// WithAuthorization asks a whether the user may do what the request
// means. Allow goes on, whatever error came with it (an authorizer may
// allow despite failing to evaluate some rules); an error without allow is a
// 500; deny and no-opinion are a 403 Forbidden in upstream's wording.
func WithAuthorization(next http.Handler, a authorizer.Authorizer, logger *slog.Logger) http.Handler {
	logger = orDiscard(logger)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		attrs, err := AttributesFrom(r)
		if err != nil {
			WriteStatus(w, apierrors.NewInternalError(err))
			return
		}
		decision, reason, err := a.Authorize(r.Context(), attrs)
		AuditAuthorizationDecision(r.Context(), decision, reason, err)
		if decision == authorizer.DecisionAllow {
			next.ServeHTTP(w, r)
			return
		}
		if err != nil {
			logger.Error("authorization failed", "uri", r.RequestURI,
				"auditID", request.AuditIDFrom(r.Context()), "err", err)
			WriteStatus(w, apierrors.NewInternalError(err))
			return
		}
		logger.Debug("forbidden", "uri", r.RequestURI, "reason", reason)
		WriteStatus(w, Forbidden(attrs, reason))
	})
}

// AttributesFrom builds the authorizer's view of r from its RequestInfo and
// user.
func AttributesFrom(r *http.Request) (authorizer.Attributes, error) {
	info, ok := request.RequestInfoFrom(r.Context())
	if !ok {
		return authorizer.Attributes{}, errNoRequestInfo
	}
	u, _ := request.UserFrom(r.Context())
	return authorizer.Attributes{
		User:            u,
		Verb:            info.Verb,
		Namespace:       info.Namespace,
		APIGroup:        info.APIGroup,
		APIVersion:      info.APIVersion,
		Resource:        info.Resource,
		Subresource:     info.Subresource,
		Name:            info.Name,
		ResourceRequest: info.IsResourceRequest,
		Path:            info.Path,
	}, nil
}

// htmlSanitizer keeps an error message from looking like HTML to a browser
// that ignores the content type; quotes stay readable.
var htmlSanitizer = strings.NewReplacer(`&`, "&amp;", `<`, "&lt;", `>`, "&gt;")

// Forbidden returns the 403 Status for a denied request, worded as
// kube-apiserver words it, e.g.
//
//	configmaps "foo" is forbidden: User "bob" cannot get resource "configmaps" in API group "" in the namespace "ns"
func Forbidden(attrs authorizer.Attributes, reason string) *apierrors.StatusError {
	msg := htmlSanitizer.Replace(forbiddenMessage(attrs))
	if reason != "" {
		msg += ": " + reason
	}
	gr := schema.GroupResource{Group: attrs.APIGroup, Resource: attrs.Resource}
	return apierrors.NewForbidden(gr, attrs.Name, errors.New(msg))
}

func forbiddenMessage(a authorizer.Attributes) string {
	name := ""
	if a.User != nil {
		name = a.User.GetName()
	}
	if !a.ResourceRequest {
		return fmt.Sprintf("User %q cannot %s path %q", name, a.Verb, a.Path)
	}
	resource := a.Resource
	if a.Subresource != "" {
		resource += "/" + a.Subresource
	}
	if a.Namespace != "" {
		return fmt.Sprintf("User %q cannot %s resource %q in API group %q in the namespace %q", name, a.Verb, resource, a.APIGroup, a.Namespace)
	}
	return fmt.Sprintf("User %q cannot %s resource %q in API group %q at the cluster scope", name, a.Verb, resource, a.APIGroup)
}
