package filters

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/server/flowcontrol"
)

// maxQueueWait caps how long any request waits in a queue, as upstream.
const maxQueueWait = time.Minute

// WithPriorityAndFairness admits requests through API Priority and
// Fairness, in place of the max-in-flight limit. Each request is
// classified (the X-Kubernetes-PF-FlowSchema-UID and
// X-Kubernetes-PF-PriorityLevel-UID response headers say where it went),
// sized in seats and queued or rejected by its priority level. A queued
// request waits at most a quarter of its deadline (defaultWait without
// one, never more than a minute); a rejected one gets 429 with the level's
// Retry-After, as upstream. Watches hold their seats only until they
// start sending; other long-running requests (exec, proxy...) bypass it.
func WithPriorityAndFairness(next http.Handler, d *flowcontrol.Dispatcher, longRunning request.LongRunningRequestCheck, defaultWait time.Duration) http.Handler {
	if d == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info, ok := requestInfo(w, r)
		if !ok {
			return
		}
		u, ok := request.UserFrom(r.Context())
		if !ok || u == nil {
			// Without authentication there is no one to classify.
			next.ServeHTTP(w, r)
			return
		}
		isWatch := info.Verb == "watch"
		if !isWatch && longRunning != nil && longRunning(r, info) {
			next.ServeHTTP(w, r)
			return
		}
		c, ok := d.Classify(flowcontrol.RequestDigest{RequestInfo: info, User: u})
		if !ok {
			request.MarkTerminated(r.Context(), http.StatusTooManyRequests)
			tooManyRequests(w, 1)
			return
		}
		work := d.EstimateWork(&c, r.URL.RawQuery)
		waitCtx, cancel := queueWaitContext(r.Context(), defaultWait)
		defer cancel()
		var reason string
		if isWatch {
			reason = serveWatch(w, r, next, d, &c, work, waitCtx)
		} else {
			reason = d.Handle(waitCtx, &c, work, nil, func() {
				setFlowControlHeaders(w, &c)
				next.ServeHTTP(w, r)
			})
		}
		if reason != "" {
			request.MarkTerminated(r.Context(), http.StatusTooManyRequests)
			setFlowControlHeaders(w, &c)
			tooManyRequests(w, d.RetryAfter(c.PriorityLevelName))
		}
	})
}

// serveWatch admits a watch: its seats are held from dispatch until the
// watch starts sending (the response is committed), then the watch runs
// on outside APF, as upstream holds them until the watch's initialization.
// The admission runs on its own goroutine while this one serves the
// watch; a panic there is re-raised here.
func serveWatch(w http.ResponseWriter, r *http.Request, next http.Handler, d *flowcontrol.Dispatcher, c *flowcontrol.Classification, work flowcontrol.WorkEstimate, waitCtx context.Context) string {
	started := make(chan struct{})
	initialized := make(chan struct{})
	var once sync.Once
	signal := func() { once.Do(func() { close(initialized) }) }
	var forget func()
	type result struct {
		reason string
		panic  any
	}
	done := make(chan result, 1)
	handled := make(chan struct{})
	go func() {
		var res result
		defer func() {
			if p := recover(); p != nil {
				res.panic = p
			}
			close(handled)
			done <- res
		}()
		res.reason = d.Handle(waitCtx, c, work, nil, func() {
			setFlowControlHeaders(w, c)
			forget = d.RegisterWatch(c)
			close(started)
			<-initialized
		})
	}()
	select {
	case <-started:
	case res := <-done:
		if res.panic != nil {
			panic(res.panic)
		}
		return res.reason
	}
	defer forget()
	defer func() {
		signal()
		if res := <-done; res.panic != nil {
			panic(res.panic)
		}
	}()
	// The seats are back before the watch's first byte goes out.
	initializedAndReleased := func() {
		signal()
		<-handled
	}
	next.ServeHTTP(&hookWriter{ResponseWriter: w, beforeHeader: initializedAndReleased}, r)
	return ""
}

// queueWaitContext bounds the queue wait: a quarter of the time left to
// the request's deadline, or defaultWait without one, at most a minute.
func queueWaitContext(ctx context.Context, defaultWait time.Duration) (context.Context, context.CancelFunc) {
	if ctx.Err() != nil {
		return ctx, func() {}
	}
	now := time.Now()
	limit := defaultWait
	if deadline, ok := ctx.Deadline(); ok {
		limit = deadline.Sub(now) / 4
	}
	limit = min(limit, maxQueueWait)
	return context.WithDeadline(ctx, now.Add(limit))
}

func setFlowControlHeaders(w http.ResponseWriter, c *flowcontrol.Classification) {
	// UIDs, not names: a client learns where it went without learning how
	// the administrator named its priority.
	w.Header().Set(flowcontrolv1.ResponseHeaderMatchedPriorityLevelConfigurationUID, string(c.PriorityLevelUID))
	w.Header().Set(flowcontrolv1.ResponseHeaderMatchedFlowSchemaUID, string(c.FlowSchemaUID))
}

// tooManyRequests is upstream's rejection: a plain-text 429 with
// Retry-After.
func tooManyRequests(w http.ResponseWriter, retryAfter int64) {
	w.Header().Set("Retry-After", strconv.FormatInt(retryAfter, 10))
	http.Error(w, "Too many requests, please try again later.", http.StatusTooManyRequests)
}
