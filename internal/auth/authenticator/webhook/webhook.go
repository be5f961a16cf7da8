// Package webhook authenticates bearer tokens by asking a remote service:
// it POSTs an authentication.k8s.io/v1 TokenReview to the server a
// kubeconfig file names (kube-apiserver's
// --authentication-token-webhook-config-file) and believes its answer,
// caching it for a while.
package webhook

import (
	"context"
	"errors"
	"fmt"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kapi-dev/kapi/internal/auth/authenticator"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

// requestTimeout bounds one call to the webhook, reading the answer
// included; a kubeconfig cannot set it.
const requestTimeout = 30 * time.Second

// defaultBackoff retries a failing webhook about five times over a few
// seconds, as kube-apiserver does.
func defaultBackoff() wait.Backoff {
	return wait.Backoff{Duration: 500 * time.Millisecond, Factor: 1.5, Jitter: 0.2, Steps: 5}
}

// New authenticates tokens with the webhook kubeconfigFile names,
// caching answers for cacheTTL (0 disables the cache). implicitAudiences
// (--api-audiences) are sent when the request names no audiences.
func New(kubeconfigFile string, cacheTTL time.Duration, implicitAudiences []string) (authenticator.Token, error) {
	return newAuthenticator(kubeconfigFile, cacheTTL, implicitAudiences, defaultBackoff(), time.Now)
}

func newAuthenticator(kubeconfigFile string, cacheTTL time.Duration, implicitAudiences []string, backoff wait.Backoff, now func() time.Time) (authenticator.Token, error) {
	client, err := restClient(kubeconfigFile)
	if err != nil {
		return nil, err
	}
	var a authenticator.Token = &reviewer{client: client, backoff: backoff, implicitAudiences: implicitAudiences}
	if cacheTTL > 0 {
		a = newCache(a, cacheTTL, now)
	}
	return a, nil
}

// restClient posts TokenReviews to the server of kubeconfigFile, at its
// exact URL (a webhook is not an API server: no resource path is added).
func restClient(kubeconfigFile string) (rest.Interface, error) {
	if kubeconfigFile == "" {
		return nil, errors.New("token webhook: no kubeconfig file")
	}
	loader := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: kubeconfigFile}, &clientcmd.ConfigOverrides{})
	config, err := loader.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("token webhook: %w", err)
	}
	config.Timeout = requestTimeout
	// the API server limits what it serves; the webhook calls follow
	config.QPS = -1

	scheme := runtime.NewScheme()
	if err := authenticationv1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	codec := serializer.NewCodecFactory(scheme).LegacyCodec(authenticationv1.SchemeGroupVersion)
	config.ContentType = runtime.ContentTypeJSON
	config.NegotiatedSerializer = serializer.NegotiatedSerializerWrapper(runtime.SerializerInfo{Serializer: codec})
	client, err := rest.UnversionedRESTClientFor(config)
	if err != nil {
		return nil, fmt.Errorf("token webhook: %w", err)
	}
	return client, nil
}

type reviewer struct {
	client            rest.Interface
	backoff           wait.Backoff
	implicitAudiences []string
}

// AuthenticateToken implements authenticator.Token. A review that says
// "not authenticated" is no opinion, or its status.error as an error.
func (r *reviewer) AuthenticateToken(ctx context.Context, token string) (*authenticator.Response, bool, error) {
	wantAuds, checkAuds := authenticator.AudiencesFrom(ctx)
	review := &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: token, Audiences: wantAuds}}
	if !checkAuds {
		review.Spec.Audiences = r.implicitAudiences
	}
	result, err := r.create(ctx, review)
	if err != nil {
		return nil, false, err
	}
	var auds []string
	if checkAuds {
		// a webhook that names no audiences vouches for the API's own
		got := r.implicitAudiences
		if len(result.Status.Audiences) > 0 {
			got = result.Status.Audiences
		}
		if auds = intersect(wantAuds, got); len(auds) == 0 {
			return nil, false, nil
		}
	}
	if !result.Status.Authenticated {
		if result.Status.Error != "" {
			return nil, false, errors.New(result.Status.Error)
		}
		return nil, false, nil
	}
	u := result.Status.User
	var extra map[string][]string
	if u.Extra != nil {
		extra = make(map[string][]string, len(u.Extra))
		for k, v := range u.Extra {
			extra[k] = v
		}
	}
	return &authenticator.Response{
		User:      &user.DefaultInfo{Name: u.Username, UID: u.UID, Groups: u.Groups, Extra: extra},
		Audiences: auds,
	}, true, nil
}

// create posts review, retrying with backoff while the webhook fails in
// a way that may pass.
func (r *reviewer) create(ctx context.Context, review *authenticationv1.TokenReview) (*authenticationv1.TokenReview, error) {
	var result *authenticationv1.TokenReview
	var callErr error
	err := wait.ExponentialBackoffWithContext(ctx, r.backoff, func(ctx context.Context) (bool, error) {
		result = &authenticationv1.TokenReview{}
		callErr = r.client.Post().Body(review).Do(ctx).Into(result)
		switch {
		case callErr == nil:
			return true, nil
		case retriable(callErr):
			return false, nil
		}
		return false, callErr
	})
	switch {
	case callErr != nil: // the webhook's own error says most
		return nil, callErr
	case err != nil:
		return nil, fmt.Errorf("webhook call failed: %w", err)
	}
	return result, nil
}

// retriable reports whether a failed call may succeed if repeated: the
// webhook answered 5xx or 429, or the request did not get an answer.
func retriable(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		code := status.Status().Code
		return code >= 500 || code == 429
	}
	return true // a transport error: refused, reset, timed out
}

func intersect(a, b []string) []string {
	var both []string
	for _, x := range a {
		for _, y := range b {
			if x == y {
				both = append(both, x)
				break
			}
		}
	}
	return both
}
