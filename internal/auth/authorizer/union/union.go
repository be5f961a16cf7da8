// Package union combines authorizers in the order of --authorization-mode:
// the first definite answer wins.
package union

import (
	"context"
	"errors"
	"strings"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
)

type unionAuthorizer []authorizer.Authorizer

// New returns an authorizer that asks each of authorizers in order. The
// first Allow or Deny is returned with its reason; NoOpinion moves on, and
// an error counts as NoOpinion so a failing webhook does not block a
// request another mode allows. When nobody decides the answer is Deny, with
// every reason given and every error joined, so the user learns why.
func New(authorizers ...authorizer.Authorizer) authorizer.Authorizer {
	return unionAuthorizer(authorizers)
}

func (u unionAuthorizer) Authorize(ctx context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	var reasons []string
	var errs []error
	for _, z := range u {
		decision, reason, err := z.Authorize(ctx, a)
		if err != nil {
			errs = append(errs, err)
		}
		if reason != "" {
			reasons = append(reasons, reason)
		}
		switch decision {
		case authorizer.DecisionAllow, authorizer.DecisionDeny:
			return decision, reason, err
		}
	}
	return authorizer.DecisionDeny, strings.Join(reasons, "\n"), errors.Join(errs...)
}
