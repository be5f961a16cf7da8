package filters

import (
	"net/http"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/audit"
	auditv1 "github.com/kapi-dev/kapi/internal/audit/v1"
)

// WithFailedAuthenticationAudit wraps the handler that answers a failed
// authentication (see WithAuthentication) so that the refusal is audited:
// the audit filter sits inside authentication and never sees it. As in
// kube-apiserver the policy is evaluated without a user, and the event is
// sent once, at stage ResponseStarted, with no user, the request's
// metadata and a responseStatus carrying the code and the kinds of
// credential that were tried.
func WithFailedAuthenticationAudit(failed http.Handler, checker audit.Checker, backend audit.Backend) http.Handler {
	return withFailedAuthenticationAudit(failed, checker, backend, time.Now)
}

func withFailedAuthenticationAudit(failed http.Handler, checker audit.Checker, backend audit.Backend, now func() time.Time) http.Handler {
	if checker == nil || backend == nil {
		return failed
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		config, ev, ok := auditPolicyFor(w, r, checker, now)
		if !ok {
			return
		}
		if config.Level.Less(auditv1.LevelMetadata) {
			failed.ServeHTTP(w, r)
			return
		}
		ev.ResponseStatus = &metav1.Status{Message: attemptedAuthentication(r)}
		rec := audit.NewRecord(config, backend, ev)
		// The writer sends the event when the code is written.
		aw := &auditWriter{ResponseWriter: w, rec: rec, now: now, longRunning: true}
		failed.ServeHTTP(aw, r.WithContext(audit.WithRecord(r.Context(), rec)))
	})
}

// attemptedAuthentication names the credentials r carried, in upstream's
// words and order.
func attemptedAuthentication(r *http.Request) string {
	var methods []string
	if _, _, ok := r.BasicAuth(); ok {
		methods = append(methods, "basic")
	}
	if scheme, _, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " "); ok && strings.EqualFold(scheme, "bearer") {
		methods = append(methods, "bearer")
	}
	if strings.TrimSpace(r.URL.Query().Get("access_token")) != "" {
		methods = append(methods, "access_token")
	}
	if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
		methods = append(methods, "x509")
	}
	if len(methods) == 0 {
		return "Authentication failed, no credentials provided"
	}
	return "Authentication failed, attempted: " + strings.Join(methods, ", ")
}
