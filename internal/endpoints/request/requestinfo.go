// Package request holds what the filter chain learns about a request (its
// RequestInfo, the user, the namespace) and carries it in the context.
package request

import (
	"context"

	"github.com/kapi-dev/kapi/internal/auth/user"
)

// RequestInfo is what the path and method of a request say about it.
type RequestInfo struct {
	// IsResourceRequest is false for /healthz, /version, discovery roots...
	IsResourceRequest bool
	Path              string
	// Verb is the Kubernetes verb: get, list, watch, create, update, patch,
	// delete, deletecollection; for non-resource requests the lower-cased
	// HTTP method.
	Verb        string
	APIPrefix   string // "api" or "apis"
	APIGroup    string
	APIVersion  string
	Namespace   string
	Resource    string
	Subresource string
	Name        string
	// Parts are the path segments after namespace handling:
	// resource[/name[/subresource...]].
	Parts []string
}

type ctxKey int

const (
	requestInfoKey ctxKey = iota
	userKey
	namespaceKey
)

// WithRequestInfo returns a context carrying info.
func WithRequestInfo(ctx context.Context, info *RequestInfo) context.Context {
	return context.WithValue(ctx, requestInfoKey, info)
}

// RequestInfoFrom returns the RequestInfo in ctx.
func RequestInfoFrom(ctx context.Context) (*RequestInfo, bool) {
	info, ok := ctx.Value(requestInfoKey).(*RequestInfo)
	return info, ok
}

// WithUser returns a context carrying the authenticated user.
func WithUser(ctx context.Context, u user.Info) context.Context {
	return context.WithValue(ctx, userKey, u)
}

// UserFrom returns the user in ctx.
func UserFrom(ctx context.Context) (user.Info, bool) {
	u, ok := ctx.Value(userKey).(user.Info)
	return u, ok
}

// WithNamespace returns a context carrying the request namespace.
func WithNamespace(ctx context.Context, ns string) context.Context {
	return context.WithValue(ctx, namespaceKey, ns)
}

// NamespaceValue returns the request namespace, "" when there is none.
func NamespaceValue(ctx context.Context) string {
	ns, _ := ctx.Value(namespaceKey).(string)
	return ns
}
