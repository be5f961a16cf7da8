// Package filters holds the HTTP filters every request passes before it
// reaches an API handler: request id, panic recovery, request info, warnings,
// cache control, HSTS, draining, timeouts, authentication, the in-flight
// limit and authorization. One filter per file, each a
// func WithX(next http.Handler, deps ...) http.Handler; the server package
// composes them in order in DefaultBuildHandlerChain.
//
// Filters answer errors with metav1.Status JSON bodies (WriteStatus), the
// wire form every Kubernetes client decodes.
package filters
