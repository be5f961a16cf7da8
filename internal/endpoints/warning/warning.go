// Package warning carries the warnings a request collects on its way
// through handlers and storage, to be sent back as Warning headers.
package warning

import "context"

// Recorder collects warnings for one request.
type Recorder interface {
	// AddWarning records a warning; agent is the component ("" for the
	// server itself) and text the message.
	AddWarning(agent, text string)
}

type ctxKey struct{}

// WithRecorder returns a context that records warnings into r.
func WithRecorder(ctx context.Context, r Recorder) context.Context {
	return context.WithValue(ctx, ctxKey{}, r)
}

// AddWarning records a warning on the request in ctx, if it has a recorder.
func AddWarning(ctx context.Context, agent, text string) {
	if r, ok := ctx.Value(ctxKey{}).(Recorder); ok {
		r.AddWarning(agent, text)
	}
}
