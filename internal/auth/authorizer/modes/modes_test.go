package modes

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

// fake answers as configured and logs its name in the shared call log.
type fake struct {
	name     string
	decision authorizer.Decision
	rules    []authorizer.ResourceRule
	log      *[]string
}

func (f *fake) Authorize(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
	*f.log = append(*f.log, f.name)
	return f.decision, f.name, nil
}

func (f *fake) RulesFor(context.Context, user.Info, string) ([]authorizer.ResourceRule, []authorizer.NonResourceRule, bool, error) {
	return f.rules, nil, false, nil
}

var (
	admin = &user.DefaultInfo{Name: "kapi-admin", Groups: []string{user.SystemPrivilegedGroup, user.AllAuthenticated}}
	alice = &user.DefaultInfo{Name: "alice", Groups: []string{user.AllAuthenticated}}
)

const (
	allow = authorizer.DecisionAllow
	deny  = authorizer.DecisionDeny
	none  = authorizer.DecisionNoOpinion
)

func TestNew(t *testing.T) {
	tests := []struct {
		name       string
		modes      []string
		decisions  map[string]authorizer.Decision // of the configured fakes
		user       user.Info
		want       authorizer.Decision
		wantReason string
		wantCalls  []string
	}{
		{name: "masters bypass before every mode", modes: []string{ModeRBAC, ModeWebhook}, user: admin, want: allow},
		{name: "masters bypass with AlwaysDeny", modes: []string{ModeAlwaysDeny}, user: admin, want: allow},
		{
			name: "AlwaysDeny denies the others", modes: []string{ModeAlwaysDeny}, user: alice,
			want: deny, wantReason: "Everything is forbidden.",
		},
		{
			name: "modes in order until one decides", modes: []string{ModeNode, ModeRBAC, ModeWebhook, ModeABAC}, user: alice,
			decisions: map[string]authorizer.Decision{ModeNode: none, ModeRBAC: none, ModeWebhook: allow, ModeABAC: deny},
			want:      allow, wantReason: ModeWebhook, wantCalls: []string{ModeNode, ModeRBAC, ModeWebhook},
		},
		{
			name: "a deny stops the chain", modes: []string{ModeWebhook, ModeRBAC}, user: alice,
			decisions: map[string]authorizer.Decision{ModeWebhook: deny, ModeRBAC: allow},
			want:      deny, wantReason: ModeWebhook, wantCalls: []string{ModeWebhook},
		},
		{
			name: "the order is the flag's", modes: []string{ModeABAC, ModeRBAC}, user: alice,
			decisions: map[string]authorizer.Decision{ModeABAC: allow, ModeRBAC: deny},
			want:      allow, wantReason: ModeABAC, wantCalls: []string{ModeABAC},
		},
		{
			name: "nobody decides", modes: []string{ModeRBAC}, user: alice,
			decisions: map[string]authorizer.Decision{ModeRBAC: none},
			want:      deny, wantReason: ModeRBAC, wantCalls: []string{ModeRBAC},
		},
		{name: "AlwaysAllow", modes: []string{ModeAlwaysAllow, ModeRBAC}, user: alice, want: allow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls []string
			f := func(name string) *fake { return &fake{name: name, decision: tt.decisions[name], log: &calls} }
			// a fake with no configured decision would deny, so an
			// unexpected call shows in the decision and the call log
			for _, m := range Modes {
				if _, ok := tt.decisions[m]; !ok {
					tt.decisions = withDefault(tt.decisions, m, deny)
				}
			}
			a, _, err := New(Config{Modes: tt.modes, RBAC: f(ModeRBAC), Node: f(ModeNode), ABAC: f(ModeABAC), Webhook: f(ModeWebhook)})
			if err != nil {
				t.Fatal(err)
			}
			d, reason, err := a.Authorize(context.Background(), authorizer.Attributes{User: tt.user, Verb: "get", Resource: "secrets", ResourceRequest: true})
			if err != nil {
				t.Fatal(err)
			}
			if d != tt.want || reason != tt.wantReason {
				t.Errorf("Authorize() = %v %q, want %v %q", d, reason, tt.want, tt.wantReason)
			}
			if diff := cmp.Diff(tt.wantCalls, calls); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

func withDefault(m map[string]authorizer.Decision, k string, d authorizer.Decision) map[string]authorizer.Decision {
	if m == nil {
		m = map[string]authorizer.Decision{}
	}
	m[k] = d
	return m
}

// TestInstrument: each mode's authorizer, and not the system:masters
// bypass, is wrapped under the mode and its lower-case name.
func TestInstrument(t *testing.T) {
	var calls, wrapped []string
	instrument := func(typ, name string, a authorizer.Authorizer) authorizer.Authorizer {
		wrapped = append(wrapped, typ+"/"+name)
		return authorizer.Func(func(ctx context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
			calls = append(calls, name)
			return a.Authorize(ctx, attrs)
		})
	}
	a, _, err := New(Config{Modes: []string{ModeNode, ModeRBAC}, Instrument: instrument,
		Node: &fake{name: ModeNode, decision: none, log: new([]string)}, RBAC: &fake{name: ModeRBAC, decision: allow, log: new([]string)}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"Node/node", "RBAC/rbac"}, wrapped); diff != "" {
		t.Errorf("wrapped (-want +got):\n%s", diff)
	}
	attrs := authorizer.Attributes{Verb: "get", Resource: "secrets", ResourceRequest: true}
	for _, u := range []user.Info{admin, alice} {
		attrs.User = u
		if _, _, err := a.Authorize(context.Background(), attrs); err != nil {
			t.Fatal(err)
		}
	}
	// The admin is allowed by the bypass, before any wrapped authorizer.
	if diff := cmp.Diff([]string{"node", "rbac"}, calls); diff != "" {
		t.Errorf("calls through the wrappers (-want +got):\n%s", diff)
	}
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		name string
		c    Config
		want string
	}{
		{name: "no modes", want: "at least one authorization-mode must be passed"},
		{name: "unknown", c: Config{Modes: []string{"Magic"}}, want: `authorization-mode "Magic" is not a valid mode`},
		{name: "twice", c: Config{Modes: []string{ModeAlwaysAllow, ModeAlwaysAllow}}, want: `authorization-mode ["AlwaysAllow" "AlwaysAllow"] has mode specified more than once`},
		{name: "RBAC without its authorizer", c: Config{Modes: []string{ModeRBAC}}, want: "authorization mode RBAC: no authorizer configured"},
		{name: "Webhook without its authorizer", c: Config{Modes: []string{ModeWebhook}}, want: "authorization mode Webhook: no authorizer configured"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := New(tt.c); err == nil || err.Error() != tt.want {
				t.Errorf("New() err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestRuleResolver(t *testing.T) {
	var log []string
	rbacRule := authorizer.ResourceRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}
	abacRule := authorizer.ResourceRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"configmaps"}}
	everything := authorizer.ResourceRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}
	tests := []struct {
		name           string
		modes          []string
		wantRules      []authorizer.ResourceRule
		wantNonRules   int
		wantIncomplete bool
		wantErr        bool
	}{
		{name: "RBAC and ABAC", modes: []string{ModeRBAC, ModeABAC}, wantRules: []authorizer.ResourceRule{rbacRule, abacRule}},
		{name: "AlwaysAllow", modes: []string{ModeAlwaysAllow}, wantRules: []authorizer.ResourceRule{everything}, wantNonRules: 1},
		{name: "AlwaysDeny lists nothing, completely", modes: []string{ModeAlwaysDeny}},
		{name: "Webhook is incomplete", modes: []string{ModeRBAC, ModeWebhook}, wantRules: []authorizer.ResourceRule{rbacRule}, wantIncomplete: true, wantErr: true},
		{name: "Node without rules of its own", modes: []string{ModeNode, ModeRBAC}, wantRules: []authorizer.ResourceRule{rbacRule}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Config{
				Modes: tt.modes,
				RBAC:  &fake{rules: []authorizer.ResourceRule{rbacRule}, log: &log},
				ABAC:  &fake{rules: []authorizer.ResourceRule{abacRule}, log: &log},
				Node: authorizer.Func(func(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
					return none, "", nil
				}),
				Webhook: &fake{rules: []authorizer.ResourceRule{abacRule}, log: &log},
			}
			_, r, err := New(c)
			if err != nil {
				t.Fatal(err)
			}
			rules, nonRules, incomplete, err := r.RulesFor(context.Background(), alice, "ns")
			if diff := cmp.Diff(tt.wantRules, rules); diff != "" {
				t.Errorf("rules (-want +got):\n%s", diff)
			}
			if len(nonRules) != tt.wantNonRules || incomplete != tt.wantIncomplete || (err != nil) != tt.wantErr {
				t.Errorf("nonRules = %v, incomplete = %v, err = %v", nonRules, incomplete, err)
			}
			if err != nil && !errors.Is(err, errWebhookRules) {
				t.Errorf("err = %v", err)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name            string
		modes           []string
		policy, webhook string
		want            []string
	}{
		{name: "defaults", modes: []string{ModeNode, ModeRBAC}},
		{name: "every mode with its files", modes: Modes, policy: "p.jsonl", webhook: "w.kubeconfig"},
		{name: "empty", want: []string{"at least one authorization-mode must be passed"}},
		{name: "unknown", modes: []string{"rbac"}, want: []string{`authorization-mode "rbac" is not a valid mode`}},
		{name: "ABAC without a file", modes: []string{ModeABAC}, want: []string{"authorization-mode ABAC's authorization policy file not passed"}},
		{name: "Webhook without a file", modes: []string{ModeWebhook}, want: []string{"authorization-mode Webhook's authorization config file not passed"}},
		{name: "policy file without ABAC", modes: []string{ModeRBAC}, policy: "p", want: []string{"cannot specify --authorization-policy-file without mode ABAC"}},
		{name: "webhook file without Webhook", modes: []string{ModeRBAC}, webhook: "w", want: []string{"cannot specify --authorization-webhook-config-file without mode Webhook"}},
		{
			name: "several at once", modes: []string{ModeRBAC, ModeABAC, ModeRBAC},
			want: []string{"authorization-mode ABAC's authorization policy file not passed", `authorization-mode ["RBAC" "ABAC" "RBAC"] has mode specified more than once`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(tt.modes, tt.policy, tt.webhook)
			var got []string
			if err != nil {
				got = strings.Split(err.Error(), "\n")
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}
