package controlplane

import (
	"context"
	"slices"

	"github.com/kapi-dev/kapi/internal/auth/authenticator"
	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/registry/authentication/selfsubjectreview"
	"github.com/kapi-dev/kapi/internal/registry/authentication/tokenreview"
	"github.com/kapi-dev/kapi/internal/registry/authorization/localsubjectaccessreview"
	"github.com/kapi-dev/kapi/internal/registry/authorization/selfsubjectaccessreview"
	"github.com/kapi-dev/kapi/internal/registry/authorization/selfsubjectrulesreview"
	"github.com/kapi-dev/kapi/internal/registry/authorization/subjectaccessreview"
	"github.com/kapi-dev/kapi/internal/registry/rbac/policybased"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// security is what the catalog needs of authentication and
// authorization: the review APIs answer with them, and role and binding
// writes are checked for escalation.
type security struct {
	authn *authentication
	authz *authorization
	// apiAudiences are what a TokenReview without audiences asks for.
	apiAudiences []string
}

// reviewGroups are authentication.k8s.io and authorization.k8s.io: the
// reviews, which store nothing.
func (s *security) reviewGroups() []rest.APIGroupInfo {
	authn := merge(
		tokenreview.NewStorage(reviewTokens{s.authn.tokens}, s.apiAudiences),
		selfsubjectreview.NewStorage(),
	)
	authz := merge(
		subjectaccessreview.NewStorage(s.authz.authorizer),
		localsubjectaccessreview.NewStorage(s.authz.authorizer),
		selfsubjectaccessreview.NewStorage(s.authz.authorizer),
		selfsubjectrulesreview.NewStorage(s.authz.rules),
	)
	return []rest.APIGroupInfo{
		{Group: "authentication.k8s.io", Versions: []string{"v1"}, Storage: map[string]map[string]rest.Storage{"v1": authn}},
		{Group: "authorization.k8s.io", Versions: []string{"v1"}, Storage: map[string]map[string]rest.Storage{"v1": authz}},
	}
}

// guardRBAC adds the escalation and bind checks to the storage of roles,
// cluster roles and their bindings, when RBAC is a mode.
func (s *security) guardRBAC(g *rest.APIGroupInfo) {
	if s.authz.rbac == nil || g.Group != "rbac.authorization.k8s.io" {
		return
	}
	kinds := map[string]policybased.Kind{
		"roles": policybased.Role, "clusterroles": policybased.ClusterRole,
		"rolebindings": policybased.RoleBinding, "clusterrolebindings": policybased.ClusterRoleBinding,
	}
	for _, storage := range g.Storage {
		for path, kind := range kinds {
			if inner, ok := storage[path]; ok {
				storage[path] = policybased.Wrap(kind, inner, s.authz.authorizer, s.authz.rbac)
			}
		}
	}
}

func merge(maps ...map[string]rest.Storage) map[string]rest.Storage {
	out := map[string]rest.Storage{}
	for _, m := range maps {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// reviewTokens is the token chain as a TokenReview sees it: every
// authenticated user is in system:authenticated, as upstream's review
// reports.
type reviewTokens struct{ inner authenticator.Token }

func (r reviewTokens) AuthenticateToken(ctx context.Context, token string) (*authenticator.Response, bool, error) {
	resp, ok, err := r.inner.AuthenticateToken(ctx, token)
	if !ok || err != nil || resp == nil || resp.User == nil {
		return resp, ok, err
	}
	groups := resp.User.GetGroups()
	if slices.Contains(groups, user.AllAuthenticated) {
		return resp, ok, nil
	}
	u := &user.DefaultInfo{Name: resp.User.GetName(), UID: resp.User.GetUID(),
		Groups: append(slices.Clone(groups), user.AllAuthenticated), Extra: resp.User.GetExtra()}
	return &authenticator.Response{User: u, Audiences: resp.Audiences}, true, nil
}
