package server

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/kapi-dev/kapi/internal/audit"
	auditv1 "github.com/kapi-dev/kapi/internal/audit/v1"
)

// memBackend keeps copies of the events it is given.
type memBackend struct {
	mu     sync.Mutex
	events []auditv1.Event
}

func (b *memBackend) ProcessEvents(events ...*auditv1.Event) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range events {
		b.events = append(b.events, *e.DeepCopy())
	}
	return true
}
func (b *memBackend) Run(<-chan struct{}) error { return nil }
func (b *memBackend) Shutdown()                 {}

// TestChainAuditsFailedAuthentication: with a Metadata policy, a request
// with a token nobody knows gets its 401 and one audit event, as
// kube-apiserver writes it: stage ResponseStarted, no user, code 401; a
// good token is audited as before.
func TestChainAuditsFailedAuthentication(t *testing.T) {
	tests := []struct {
		name       string
		header     string
		wantCode   int
		wantStages []auditv1.Stage
		wantUser   string
		wantStatus int32
	}{
		{"unknown credential", "Basic dTpw", http.StatusUnauthorized,
			[]auditv1.Stage{auditv1.StageResponseStarted}, "", http.StatusUnauthorized},
		{"no credential", "", http.StatusUnauthorized,
			[]auditv1.Stage{auditv1.StageResponseStarted}, "", http.StatusUnauthorized},
		{"known token", "Bearer alice", http.StatusOK,
			[]auditv1.Stage{auditv1.StageRequestReceived, auditv1.StageResponseComplete}, "alice", http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &memBackend{}
			c := NewConfig()
			c.Authentication = tokenAuthenticator
			c.Authorization = denyBob
			c.AuditChecker = audit.NewChecker(&auditv1.Policy{Rules: []auditv1.PolicyRule{{Level: auditv1.LevelMetadata}}})
			c.AuditBackend = b
			h := DefaultBuildHandlerChain(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}), c.complete())
			r := httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/default/pods", nil)
			if tt.header != "" {
				r.Header.Set("Authorization", tt.header)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			if rec.Code != tt.wantCode {
				t.Fatalf("code = %d, want %d", rec.Code, tt.wantCode)
			}
			b.mu.Lock()
			defer b.mu.Unlock()
			var stages []auditv1.Stage
			for _, e := range b.events {
				stages = append(stages, e.Stage)
			}
			if len(stages) != len(tt.wantStages) {
				t.Fatalf("stages %v, want %v", stages, tt.wantStages)
			}
			for i, e := range b.events {
				if e.Stage != tt.wantStages[i] {
					t.Errorf("stage %d = %s, want %s", i, e.Stage, tt.wantStages[i])
				}
				if e.User.Username != tt.wantUser || e.Verb != "list" || e.RequestURI != "/api/v1/namespaces/default/pods" {
					t.Errorf("event %d: user %q verb %q uri %q", i, e.User.Username, e.Verb, e.RequestURI)
				}
				if e.AuditID == "" || string(e.AuditID) != rec.Header().Get("Audit-Id") {
					t.Errorf("event %d: auditID %q, response Audit-Id %q", i, e.AuditID, rec.Header().Get("Audit-Id"))
				}
			}
			last := b.events[len(b.events)-1]
			if last.ResponseStatus == nil || last.ResponseStatus.Code != tt.wantStatus {
				t.Errorf("responseStatus %+v, want code %d", last.ResponseStatus, tt.wantStatus)
			}
		})
	}
}
