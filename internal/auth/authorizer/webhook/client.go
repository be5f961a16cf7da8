package webhook

import (
	"context"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// create POSTs review to the webhook, retrying transient failures along
// w.backoff, and returns the webhook's answer.
func (w *Authorizer) create(ctx context.Context, review *authorizationv1.SubjectAccessReview) (*authorizationv1.SubjectAccessReview, error) {
	backoff := w.backoff
	tries := backoff.Steps // Step counts it down
	for attempt := 1; ; attempt++ {
		result := &authorizationv1.SubjectAccessReview{}
		err := w.client.Post().Body(review).Do(ctx).Into(result)
		if err == nil {
			return result, nil
		}
		if !retriable(err) || attempt >= tries || ctx.Err() != nil {
			return nil, err
		}
		timer := time.NewTimer(backoff.Step())
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, err
		case <-timer.C:
		}
	}
}

// retriable says whether err is worth another try: a dropped connection,
// a server error or timeout, throttling, or an explicit Retry-After.
func retriable(err error) bool {
	if utilnet.IsConnectionReset(err) || utilnet.IsHTTP2ConnectionLost(err) ||
		apierrors.IsInternalError(err) || apierrors.IsTimeout(err) || apierrors.IsTooManyRequests(err) {
		return true
	}
	_, retry := apierrors.SuggestsClientDelay(err)
	return retry
}
