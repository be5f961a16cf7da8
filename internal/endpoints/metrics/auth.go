package metrics

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kapi-dev/kapi/internal/auth/authenticator"
	"github.com/kapi-dev/kapi/internal/auth/authorizer"
)

// Result labels of the authentication and authorization families.
const (
	resultSuccess   = "success"
	resultFailure   = "failure"
	resultError     = "error"
	resultAllowed   = "allowed"
	resultDenied    = "denied"
	resultNoOpinion = "no-opinion"
)

// authChildren holds the children of a result label, made up front: the
// results are few and known.
type authChildren struct {
	attempts prometheus.Counter
	duration prometheus.Observer
}

func children(attempts *prometheus.CounterVec, duration *prometheus.HistogramVec, results ...string) map[string]authChildren {
	m := make(map[string]authChildren, len(results))
	for _, r := range results {
		m[r] = authChildren{attempts.WithLabelValues(r), duration.WithLabelValues(r)}
	}
	return m
}

// Authenticator returns a, recording each attempt in
// authentication_attempts and authentication_duration_seconds, and each
// user it identifies in authenticated_user_requests.
func (m *Metrics) Authenticator(a authenticator.Request) authenticator.Request {
	if m == nil || a == nil {
		return a
	}
	results := children(m.authnAttempts, m.authnDuration, resultSuccess, resultFailure, resultError)
	return authenticator.RequestFunc(func(r *http.Request) (*authenticator.Response, bool, error) {
		start := time.Now()
		resp, ok, err := a.AuthenticateRequest(r)
		result := resultSuccess
		switch {
		case err != nil:
			result = resultError
		case !ok || resp == nil || resp.User == nil:
			result = resultFailure
		default:
			m.authnUsers.WithLabelValues(compressUsername(resp.User.GetName())).Inc()
		}
		c := results[result]
		c.attempts.Inc()
		c.duration.Observe(time.Since(start).Seconds())
		return resp, ok, err
	})
}

// compressUsername folds user names into a few values, as upstream does,
// to bound the label and keep names out of the metrics.
func compressUsername(name string) string {
	switch {
	case name == "admin" || name == "client" || name == "kube_proxy" || name == "kubelet" ||
		name == "system:serviceaccount:kube-system:default":
		return name
	case strings.Contains(name, "@"):
		return "email_id"
	}
	return "other"
}

// Authorizer returns a, recording each decision in
// authorization_attempts_total and authorization_duration_seconds. Only the
// authorization filter's authorizer is wrapped, as upstream counts the
// filter's decisions, not those of impersonation or access reviews.
func (m *Metrics) Authorizer(a authorizer.Authorizer) authorizer.Authorizer {
	if m == nil || a == nil {
		return a
	}
	results := children(m.authzAttempts, m.authzDuration, resultAllowed, resultDenied, resultNoOpinion, resultError)
	return authorizer.Func(func(ctx context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
		start := time.Now()
		decision, reason, err := a.Authorize(ctx, attrs)
		var result string
		switch {
		case decision == authorizer.DecisionAllow:
			result = resultAllowed
		case err != nil:
			result = resultError
		case decision == authorizer.DecisionDeny:
			result = resultDenied
		default:
			result = resultNoOpinion
		}
		c := results[result]
		c.attempts.Inc()
		c.duration.Observe(time.Since(start).Seconds())
		return decision, reason, err
	})
}

// AuthorizerDecisions returns a, counting each terminal decision it makes
// (allowed or denied; no opinion passes the question on and is not
// counted) in apiserver_authorization_decisions_total under the type and
// name of the authorizer. Upstream names the authorizer of an
// --authorization-mode with the mode in lower case.
func (m *Metrics) AuthorizerDecisions(typ, name string, a authorizer.Authorizer) authorizer.Authorizer {
	if m == nil || a == nil {
		return a
	}
	// A series appears with the first decision of its kind, as upstream's.
	allowed := sync.OnceValue(func() prometheus.Counter { return m.authzDecisions.WithLabelValues(typ, name, resultAllowed) })
	denied := sync.OnceValue(func() prometheus.Counter { return m.authzDecisions.WithLabelValues(typ, name, resultDenied) })
	return authorizer.Func(func(ctx context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
		decision, reason, err := a.Authorize(ctx, attrs)
		switch decision {
		case authorizer.DecisionAllow:
			allowed().Inc()
		case authorizer.DecisionDeny:
			denied().Inc()
		}
		return decision, reason, err
	})
}
