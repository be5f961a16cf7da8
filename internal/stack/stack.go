// Package stack grows a goroutine's stack ahead of deep work.
package stack

// Go starts a goroutine, such as the one HTTP/2 runs each request on, at
// the average stack size of all goroutines: a few KiB, since most of a
// server's goroutines are parked watchers. A request then outgrows its
// stack, which doubles step by step, each time copying (and walking every
// frame of) an ever deeper stack. A create or update goes deep (the filter
// chain, then structured-merge-diff's recursive compare of the object for
// its managed fields): under a stream of creates this growth was a tenth
// of the server's CPU. Growing the stack once, while it is still shallow,
// costs a copy of a few frames instead.
const (
	// chainStackFrame fits the filters that run on the request's own
	// goroutine (the stack becomes 16 KiB).
	chainStackFrame = 12 << 10
	// handlerStackFrame fits a short request's handler (64 KiB).
	handlerStackFrame = 40 << 10
)

// keepFrame keeps the frames below from being optimized away.
//
//go:noinline
func keepFrame([]byte) {}

// useFrame is never true. A function reserves its whole frame, and checks
// the stack for it, on entry; a variable is zeroed only where it is
// declared. Declaring the frame in a branch never taken grows the stack
// without clearing 40 KiB on every request.
var useFrame = false

// GrowForChain grows the calling goroutine's stack to fit the filter
// chain. It is called first thing on a request's goroutine.
//
//go:noinline
func GrowForChain() {
	if useFrame {
		var frame [chainStackFrame]byte
		keepFrame(frame[:])
	}
}

// GrowForHandler grows the calling goroutine's stack to fit a short
// request's handler, or any work as deep: a create, update or patch of an
// object.
//
//go:noinline
func GrowForHandler() {
	if useFrame {
		var frame [handlerStackFrame]byte
		keepFrame(frame[:])
	}
}
