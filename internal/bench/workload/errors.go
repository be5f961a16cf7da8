package workload

import (
	"context"
	"errors"
	"maps"
	"net"
	"strconv"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Classify names a failed operation's error for the Errors map: the HTTP
// status code of an API error ("409"), "timeout" when the client gave up,
// "canceled" when the run was interrupted, "network" otherwise.
func Classify(err error) string {
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		if code := st.Status().Code; code != 0 {
			return strconv.Itoa(int(code))
		}
	}
	var ne net.Error
	switch {
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	}
	return "network"
}

// ErrorCounts counts errors by class and keeps the first one, to explain
// a workload that could not run at all. It is safe for concurrent use.
type ErrorCounts struct {
	mu    sync.Mutex
	m     map[string]int64
	first error
}

// Add counts err (nil is not counted).
func (e *ErrorCounts) Add(err error) {
	if err == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.m == nil {
		e.m = map[string]int64{}
		e.first = err
	}
	e.m[Classify(err)]++
}

// Map returns the counts, or nil when there were none.
func (e *ErrorCounts) Map() map[string]int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return maps.Clone(e.m)
}

// Total is the number of errors counted.
func (e *ErrorCounts) Total() int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	var n int64
	for _, v := range e.m {
		n += v
	}
	return n
}

// First is the first error counted.
func (e *ErrorCounts) First() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.first
}
