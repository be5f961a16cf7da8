package union

import (
	"context"
	"errors"
	"testing"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
)

// fake answers as configured and counts its calls.
type fake struct {
	decision authorizer.Decision
	reason   string
	err      error
	calls    int
}

func (f *fake) Authorize(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
	f.calls++
	return f.decision, f.reason, f.err
}

var errWebhook = errors.New("webhook unreachable")

func TestUnion(t *testing.T) {
	const (
		allow = authorizer.DecisionAllow
		deny  = authorizer.DecisionDeny
		none  = authorizer.DecisionNoOpinion
	)
	tests := []struct {
		name         string
		chain        []*fake
		wantDecision authorizer.Decision
		wantReason   string
		wantErr      error
		wantCalls    []int
	}{
		{name: "empty denies", wantDecision: deny},
		{name: "allow wins", chain: []*fake{{decision: allow, reason: "a"}, {decision: deny}}, wantDecision: allow, wantReason: "a", wantCalls: []int{1, 0}},
		{name: "deny wins", chain: []*fake{{decision: deny, reason: "d"}, {decision: allow}}, wantDecision: deny, wantReason: "d", wantCalls: []int{1, 0}},
		{name: "no opinion moves on", chain: []*fake{{decision: none, reason: "x"}, {decision: allow, reason: "a"}}, wantDecision: allow, wantReason: "a", wantCalls: []int{1, 1}},
		{name: "error moves on", chain: []*fake{{decision: none, err: errWebhook}, {decision: allow}}, wantDecision: allow, wantCalls: []int{1, 1}},
		{
			name:         "all no opinion denies with every reason and error",
			chain:        []*fake{{decision: none, reason: "rbac: no rule"}, {decision: none}, {decision: none, reason: "webhook: failed", err: errWebhook}},
			wantDecision: deny, wantReason: "rbac: no rule\nwebhook: failed", wantErr: errWebhook, wantCalls: []int{1, 1, 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var chain []authorizer.Authorizer
			for _, f := range tt.chain {
				chain = append(chain, f)
			}
			d, reason, err := New(chain...).Authorize(context.Background(), authorizer.Attributes{Verb: "get"})
			if d != tt.wantDecision || reason != tt.wantReason {
				t.Errorf("Authorize() = %v, %q; want %v, %q", d, reason, tt.wantDecision, tt.wantReason)
			}
			if (err != nil) != (tt.wantErr != nil) || (tt.wantErr != nil && !errors.Is(err, tt.wantErr)) {
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			}
			for i, f := range tt.chain {
				if f.calls != tt.wantCalls[i] {
					t.Errorf("authorizer %d called %d times, want %d", i, f.calls, tt.wantCalls[i])
				}
			}
		})
	}
}
