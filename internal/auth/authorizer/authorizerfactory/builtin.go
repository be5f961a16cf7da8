// Package authorizerfactory holds the authorizers that need no
// configuration: the privileged-group bypass and the AlwaysAllow and
// AlwaysDeny modes.
package authorizerfactory

import (
	"context"
	"slices"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

// NewPrivilegedGroups allows every request from a member of one of groups
// and has no opinion otherwise. kapi puts it first in the chain with
// system:masters, so the admin credential works whatever the other modes
// say, and before any RBAC object exists.
func NewPrivilegedGroups(groups ...string) authorizer.Authorizer {
	return authorizer.Func(func(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
		if a.User == nil {
			return authorizer.DecisionNoOpinion, "", nil
		}
		for _, g := range a.User.GetGroups() {
			if slices.Contains(groups, g) {
				return authorizer.DecisionAllow, "", nil
			}
		}
		return authorizer.DecisionNoOpinion, "", nil
	})
}

// NewSystemMasters is NewPrivilegedGroups for system:masters.
func NewSystemMasters() authorizer.Authorizer {
	return NewPrivilegedGroups(user.SystemPrivilegedGroup)
}

// NewAlwaysAllow allows everything (--authorization-mode=AlwaysAllow).
func NewAlwaysAllow() authorizer.Authorizer {
	return authorizer.Func(func(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
		return authorizer.DecisionAllow, "", nil
	})
}

// NewAlwaysDeny forbids everything (--authorization-mode=AlwaysDeny). Like
// upstream it answers NoOpinion rather than Deny, so that modes listed after
// it are still asked; the union denies when nobody allows.
func NewAlwaysDeny() authorizer.Authorizer {
	return authorizer.Func(func(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
		return authorizer.DecisionNoOpinion, "Everything is forbidden.", nil
	})
}
