package filters

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	authnv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"

	"github.com/kapi-dev/kapi/internal/audit"
	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

const (
	saUsernamePrefix = "system:serviceaccount:"
	saAllGroup       = "system:serviceaccounts"
	saGroupPrefix    = "system:serviceaccounts:"
)

// WithImpersonation lets a user act as another when it may: with
// Impersonate-User (a service account when it is
// system:serviceaccount:<ns>:<name>), Impersonate-Group, Impersonate-Uid and
// Impersonate-Extra-<key>, each value is authorized with the verb
// "impersonate" on users, groups, serviceaccounts (in their namespace),
// uids or userextras/<key> (the last two in authentication.k8s.io) before
// the request goes on as the impersonated user. Groups, uid or extras
// without a user are a 400; any refusal is a 403 naming what was refused.
// The impersonated user is a member of system:authenticated (or
// system:unauthenticated for system:anonymous) unless the request named
// one of those groups; a service account without named groups gets its
// service-account groups. The headers are removed, and the audit event
// keeps the authenticated user with the impersonated one beside it.
func WithImpersonation(next http.Handler, authz authorizer.Authorizer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		wanted, err := impersonationRequests(r.Header)
		if err != nil {
			WriteStatus(w, err)
			return
		}
		if len(wanted) == 0 {
			removeImpersonationHeaders(r.Header)
			next.ServeHTTP(w, r)
			return
		}
		ctx := r.Context()
		requestor, ok := request.UserFrom(ctx)
		if !ok {
			WriteStatus(w, apierrors.NewInternalError(errors.New("no user found for request")))
			return
		}
		groupsNamed := len(r.Header[authnv1.ImpersonateGroupHeader]) > 0
		acting := &user.DefaultInfo{Groups: []string{}, Extra: map[string][]string{}}
		for _, want := range wanted {
			attrs := impersonationAttributes(requestor, want)
			switch want.Kind {
			case "ServiceAccount":
				acting.Name = saUsernamePrefix + want.Namespace + ":" + want.Name
				if !groupsNamed {
					acting.Groups = []string{saAllGroup, saGroupPrefix + want.Namespace}
				}
			case "User":
				acting.Name = want.Name
			case "Group":
				acting.Groups = append(acting.Groups, want.Name)
			case "UserExtra":
				acting.Extra[want.FieldPath] = append(acting.Extra[want.FieldPath], want.Name)
			case "UID":
				acting.UID = want.Name
			}
			decision, reason, err := authz.Authorize(ctx, attrs)
			if err != nil || decision != authorizer.DecisionAllow {
				// Upstream refuses on an authorizer error too, with a 403.
				WriteStatus(w, Forbidden(attrs, reason))
				return
			}
		}
		acting.Groups = withAuthenticationGroup(acting.Name, acting.Groups)

		audit.LogImpersonatedUser(ctx, acting)
		removeImpersonationHeaders(r.Header)
		next.ServeHTTP(w, r.WithContext(request.WithUser(ctx, acting)))
	})
}

// impersonationAttributes is what requestor must be allowed to do to
// impersonate want.
func impersonationAttributes(requestor user.Info, want corev1.ObjectReference) authorizer.Attributes {
	a := authorizer.Attributes{
		User:            requestor,
		Verb:            "impersonate",
		Name:            want.Name,
		ResourceRequest: true,
	}
	switch want.Kind {
	case "ServiceAccount":
		a.Resource, a.Namespace = "serviceaccounts", want.Namespace
	case "User":
		a.Resource = "users"
	case "Group":
		a.Resource = "groups"
	case "UserExtra":
		a.APIGroup, a.APIVersion = authnv1.GroupName, "v1"
		a.Resource, a.Subresource = "userextras", want.FieldPath
	case "UID":
		a.APIGroup, a.APIVersion = authnv1.GroupName, "v1"
		a.Resource = "uids"
	}
	return a
}

// withAuthenticationGroup adds system:authenticated (system:unauthenticated
// for the anonymous user) unless the caller named either group itself.
func withAuthenticationGroup(name string, groups []string) []string {
	if name == user.Anonymous {
		if !slices.Contains(groups, user.AllUnauthenticated) {
			groups = append(groups, user.AllUnauthenticated)
		}
		return groups
	}
	if !slices.Contains(groups, user.AllAuthenticated) && !slices.Contains(groups, user.AllUnauthenticated) {
		groups = append(groups, user.AllAuthenticated)
	}
	return groups
}

// impersonationRequests lists what the headers ask to impersonate, in the
// order they are authorized: user, groups, extras (by key), uid. They are
// corev1.ObjectReferences, as upstream's are, so the 400 message reads the
// same.
func impersonationRequests(h http.Header) ([]corev1.ObjectReference, error) {
	var wanted []corev1.ObjectReference
	name := h.Get(authnv1.ImpersonateUserHeader)
	if name != "" {
		if ns, sa, ok := splitServiceAccountUsername(name); ok {
			wanted = append(wanted, corev1.ObjectReference{Kind: "ServiceAccount", Namespace: ns, Name: sa})
		} else {
			wanted = append(wanted, corev1.ObjectReference{Kind: "User", Name: name})
		}
	}
	groups := h[authnv1.ImpersonateGroupHeader]
	for _, g := range groups {
		wanted = append(wanted, corev1.ObjectReference{Kind: "Group", Name: g})
	}
	extraHeaders := impersonationExtraHeaders(h)
	for _, hn := range extraHeaders {
		key := extraKey(hn[len(authnv1.ImpersonateUserExtraHeaderPrefix):])
		for _, v := range h[hn] {
			wanted = append(wanted, corev1.ObjectReference{
				Kind: "UserExtra", APIVersion: authnv1.SchemeGroupVersion.String(), Name: v, FieldPath: key,
			})
		}
	}
	uid := h.Get(authnv1.ImpersonateUIDHeader)
	if uid != "" {
		wanted = append(wanted, corev1.ObjectReference{Kind: "UID", APIVersion: authnv1.SchemeGroupVersion.String(), Name: uid})
	}
	if name == "" && (len(groups) > 0 || len(extraHeaders) > 0 || uid != "") {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("requested %v without impersonating a user", wanted))
	}
	return wanted, nil
}

// impersonationExtraHeaders returns the Impersonate-Extra-* header names,
// sorted so that checks run in a stable order.
func impersonationExtraHeaders(h http.Header) []string {
	var names []string
	for hn := range h {
		if strings.HasPrefix(hn, authnv1.ImpersonateUserExtraHeaderPrefix) {
			names = append(names, hn)
		}
	}
	slices.Sort(names)
	return names
}

// extraKey is the user-extra key a header names: lower-cased, then
// %-decoded so keys may hold characters header names cannot; a malformed
// escape is kept as written.
func extraKey(encoded string) string {
	lower := strings.ToLower(encoded)
	if key, err := url.PathUnescape(lower); err == nil {
		return key
	}
	return lower
}

// splitServiceAccountUsername parses system:serviceaccount:<ns>:<name>
// with a valid namespace and name.
func splitServiceAccountUsername(name string) (namespace, sa string, ok bool) {
	rest, found := strings.CutPrefix(name, saUsernamePrefix)
	if !found {
		return "", "", false
	}
	parts := strings.Split(rest, ":")
	if len(parts) != 2 {
		return "", "", false
	}
	if len(apivalidation.ValidateNamespaceName(parts[0], false)) > 0 ||
		len(apivalidation.ValidateServiceAccountName(parts[1], false)) > 0 {
		return "", "", false
	}
	return parts[0], parts[1], true
}

func removeImpersonationHeaders(h http.Header) {
	h.Del(authnv1.ImpersonateUserHeader)
	h.Del(authnv1.ImpersonateGroupHeader)
	h.Del(authnv1.ImpersonateUIDHeader)
	for hn := range h {
		if strings.HasPrefix(hn, authnv1.ImpersonateUserExtraHeaderPrefix) {
			delete(h, hn)
		}
	}
}
