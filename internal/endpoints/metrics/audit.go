package metrics

import (
	"github.com/kapi-dev/kapi/internal/audit"
	auditv1 "github.com/kapi-dev/kapi/internal/audit/v1"
)

// AuditBackend returns b, counting in apiserver_audit_event_total every
// event handed to it, and in apiserver_audit_requests_rejected_total every
// request the audit filter refuses because b could not take its first
// event (RequestReceived is the only stage whose failure fails the
// request). A nil b stays nil: nothing is audited.
func (m *Metrics) AuditBackend(b audit.Backend) audit.Backend {
	if m == nil || b == nil {
		return b
	}
	return &countedAudit{Backend: b, ops: m.ops}
}

type countedAudit struct {
	audit.Backend
	ops *operations
}

func (c *countedAudit) ProcessEvents(events ...*auditv1.Event) bool {
	c.ops.auditEvents.Add(float64(len(events)))
	ok := c.Backend.ProcessEvents(events...)
	if !ok && len(events) == 1 && events[0].Stage == auditv1.StageRequestReceived {
		c.ops.auditRejected.Inc()
	}
	return ok
}
