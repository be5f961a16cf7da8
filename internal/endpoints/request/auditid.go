package request

import "context"

// auditIDKey is distinct from the keys in requestinfo.go; a struct type keeps
// it from colliding with them.
type auditIDKey struct{}

// WithAuditID returns a context carrying the request's audit ID, the value
// echoed in the Audit-Id response header.
func WithAuditID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, auditIDKey{}, id)
}

// AuditIDFrom returns the audit ID in ctx, "" when there is none.
func AuditIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(auditIDKey{}).(string)
	return id
}
