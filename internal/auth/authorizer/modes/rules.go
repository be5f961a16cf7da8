package modes

import (
	"context"
	"errors"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

// ruleResolvers lists the rules of every resolver: the union of their
// rules, incomplete if one is, with every error joined.
type ruleResolvers []authorizer.RuleResolver

func (rs ruleResolvers) RulesFor(ctx context.Context, u user.Info, namespace string) ([]authorizer.ResourceRule, []authorizer.NonResourceRule, bool, error) {
	var (
		rules      []authorizer.ResourceRule
		nonRules   []authorizer.NonResourceRule
		incomplete bool
		errs       []error
	)
	for _, r := range rs {
		rr, nr, inc, err := r.RulesFor(ctx, u, namespace)
		rules = append(rules, rr...)
		nonRules = append(nonRules, nr...)
		incomplete = incomplete || inc
		if err != nil {
			errs = append(errs, err)
		}
	}
	return rules, nonRules, incomplete, errors.Join(errs...)
}

// allowAll is AlwaysAllow's rules: everything.
type allowAll struct{}

func (allowAll) RulesFor(context.Context, user.Info, string) ([]authorizer.ResourceRule, []authorizer.NonResourceRule, bool, error) {
	return []authorizer.ResourceRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}},
		[]authorizer.NonResourceRule{{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}}, false, nil
}

// noRules is AlwaysDeny's: nothing, and that is the whole list, as
// upstream.
type noRules struct{}

func (noRules) RulesFor(context.Context, user.Info, string) ([]authorizer.ResourceRule, []authorizer.NonResourceRule, bool, error) {
	return nil, nil, false, nil
}

// errWebhookRules is upstream's word for a webhook's rules.
var errWebhookRules = errors.New("webhook authorizer does not support user rule resolution")

// unresolvable is Webhook's: the rules cannot be listed.
type unresolvable struct{}

func (unresolvable) RulesFor(context.Context, user.Info, string) ([]authorizer.ResourceRule, []authorizer.NonResourceRule, bool, error) {
	return nil, nil, true, errWebhookRules
}
