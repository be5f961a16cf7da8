// Package modes builds the server's authorizer from --authorization-mode:
// the configured authorizers in the order given, behind a system:masters
// bypass, and the matching rule resolver for SelfSubjectRulesReview.
package modes

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/authorizer/authorizerfactory"
	"github.com/kapi-dev/kapi/internal/auth/authorizer/union"
)

// The authorization modes, spelled as kube-apiserver's flag takes them.
const (
	ModeAlwaysAllow = "AlwaysAllow"
	ModeAlwaysDeny  = "AlwaysDeny"
	ModeABAC        = "ABAC"
	ModeRBAC        = "RBAC"
	ModeNode        = "Node"
	ModeWebhook     = "Webhook"
)

// Modes lists every valid mode.
var Modes = []string{ModeAlwaysAllow, ModeAlwaysDeny, ModeABAC, ModeRBAC, ModeNode, ModeWebhook}

// IsValid says whether mode is one of Modes.
func IsValid(mode string) bool { return slices.Contains(Modes, mode) }

// Config carries the built authorizers of the modes in Modes; the others
// are nil.
type Config struct {
	Modes []string
	RBAC  interface {
		authorizer.Authorizer
		authorizer.RuleResolver
	}
	Node authorizer.Authorizer
	ABAC interface {
		authorizer.Authorizer
		authorizer.RuleResolver
	}
	Webhook authorizer.Authorizer
	// Instrument, when set, wraps the authorizer of each mode (not the
	// system:masters bypass, as upstream) given the mode as its type and
	// its name (the mode in lower case, upstream's name for the authorizer
	// of a mode), e.g. to count its decisions.
	Instrument func(typ, name string, a authorizer.Authorizer) authorizer.Authorizer
}

// New returns the union of c's authorizers in the order of c.Modes, with
// the system:masters bypass first whatever the modes, so the admin
// credential always works; and the union of their rule resolvers. A mode
// named without its authorizer is an error.
func New(c Config) (authorizer.Authorizer, authorizer.RuleResolver, error) {
	if err := checkModes(c.Modes); err != nil {
		return nil, nil, err
	}
	authorizers := []authorizer.Authorizer{authorizerfactory.NewSystemMasters()}
	var resolvers []authorizer.RuleResolver
	for _, mode := range c.Modes {
		a, r, err := c.build(mode)
		if err != nil {
			return nil, nil, err
		}
		if c.Instrument != nil {
			a = c.Instrument(mode, strings.ToLower(mode), a)
		}
		authorizers = append(authorizers, a)
		if r != nil {
			resolvers = append(resolvers, r)
		}
	}
	return union.New(authorizers...), ruleResolvers(resolvers), nil
}

// build returns the authorizer of one mode and its rule resolver.
func (c Config) build(mode string) (authorizer.Authorizer, authorizer.RuleResolver, error) {
	missing := func() error { return fmt.Errorf("authorization mode %s: no authorizer configured", mode) }
	switch mode {
	case ModeAlwaysAllow:
		return authorizerfactory.NewAlwaysAllow(), allowAll{}, nil
	case ModeAlwaysDeny:
		return authorizerfactory.NewAlwaysDeny(), noRules{}, nil
	case ModeRBAC:
		if c.RBAC == nil {
			return nil, nil, missing()
		}
		return c.RBAC, c.RBAC, nil
	case ModeABAC:
		if c.ABAC == nil {
			return nil, nil, missing()
		}
		return c.ABAC, c.ABAC, nil
	case ModeNode:
		if c.Node == nil {
			return nil, nil, missing()
		}
		// the node authorizer lists its rules if it can
		r, _ := c.Node.(authorizer.RuleResolver)
		return c.Node, r, nil
	case ModeWebhook:
		if c.Webhook == nil {
			return nil, nil, missing()
		}
		return c.Webhook, unresolvable{}, nil
	}
	return nil, nil, fmt.Errorf("authorization-mode %q is not a valid mode", mode)
}

// checkModes refuses what Validate refuses about the modes alone.
func checkModes(modes []string) error {
	if len(modes) == 0 {
		return errors.New("at least one authorization-mode must be passed")
	}
	seen := map[string]bool{}
	for _, m := range modes {
		if seen[m] {
			return fmt.Errorf("authorization-mode %q has mode specified more than once", modes)
		}
		seen[m] = true
	}
	return nil
}

// Validate checks the --authorization-mode values against the files given
// for them, with kube-apiserver's messages; every problem is reported.
func Validate(modes []string, policyFile, webhookConfigFile string) error {
	var errs []error
	if len(modes) == 0 {
		errs = append(errs, errors.New("at least one authorization-mode must be passed"))
	}
	for _, mode := range modes {
		if !IsValid(mode) {
			errs = append(errs, fmt.Errorf("authorization-mode %q is not a valid mode", mode))
		}
		if mode == ModeABAC && policyFile == "" {
			errs = append(errs, errors.New("authorization-mode ABAC's authorization policy file not passed"))
		}
		if mode == ModeWebhook && webhookConfigFile == "" {
			errs = append(errs, errors.New("authorization-mode Webhook's authorization config file not passed"))
		}
	}
	if policyFile != "" && !slices.Contains(modes, ModeABAC) {
		errs = append(errs, errors.New("cannot specify --authorization-policy-file without mode ABAC"))
	}
	if webhookConfigFile != "" && !slices.Contains(modes, ModeWebhook) {
		errs = append(errs, errors.New("cannot specify --authorization-webhook-config-file without mode Webhook"))
	}
	unique := slices.Clone(modes)
	slices.Sort(unique)
	if len(slices.Compact(unique)) != len(modes) {
		errs = append(errs, fmt.Errorf("authorization-mode %q has mode specified more than once", modes))
	}
	return errors.Join(errs...)
}
