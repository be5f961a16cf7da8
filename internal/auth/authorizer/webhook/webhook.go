// Package webhook is the Webhook authorization mode: each decision is asked
// of a remote service by POSTing an authorization.k8s.io/v1
// SubjectAccessReview to the server named in a kubeconfig file
// (--authorization-webhook-config-file). Answers are cached, transient
// failures retried briefly, and a failing webhook has no opinion, so the
// modes after it still decide.
package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/util/cache"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/transport"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

// The TTLs kube-apiserver's flags default to
// (--authorization-webhook-cache-authorized-ttl and -unauthorized-ttl).
const (
	DefaultAuthorizedTTL   = 5 * time.Minute
	DefaultUnauthorizedTTL = 30 * time.Second
)

const (
	// requestTimeout bounds one call: a kubeconfig cannot set a timeout
	// and a hung webhook must not hang requests.
	requestTimeout = 30 * time.Second
	cacheSize      = 8192
	// maxCachedAttrSize: requests whose client-chosen attributes are this
	// large are not cached, so they cannot flush the cache.
	maxCachedAttrSize = 10000
)

// errBothAllowedAndDenied is upstream's complaint about a contradictory answer.
var errBothAllowedAndDenied = errors.New("webhook subject access review returned both allow and deny response")

// errNoRules: a webhook cannot list what a user may do.
var errNoRules = errors.New("webhook authorizer does not support user rule resolution")

// defaultBackoff is upstream's: five tries, 500ms apart and growing.
func defaultBackoff() wait.Backoff {
	return wait.Backoff{Duration: 500 * time.Millisecond, Factor: 1.5, Jitter: 0.2, Steps: 5}
}

// Authorizer asks the webhook.
type Authorizer struct {
	client          rest.Interface
	cache           *cache.LRUExpireCache
	authorizedTTL   time.Duration
	unauthorizedTTL time.Duration
	backoff         wait.Backoff
}

var (
	_ authorizer.Authorizer   = (*Authorizer)(nil)
	_ authorizer.RuleResolver = (*Authorizer)(nil)
)

// New returns an authorizer asking the server of the current context of
// kubeconfigFile, with that context's credentials, at the exact URL it
// names. Allowed answers are cached for authorizedTTL, the others for
// unauthorizedTTL; a TTL of 0 turns that caching off, as upstream (the
// flags default to DefaultAuthorizedTTL and DefaultUnauthorizedTTL).
// wrap, when not nil, wraps the client's transport (tracing).
func New(kubeconfigFile string, authorizedTTL, unauthorizedTTL time.Duration, wrap transport.WrapperFunc) (authorizer.Authorizer, error) {
	cfg, err := loadConfig(kubeconfigFile)
	if err != nil {
		return nil, err
	}
	if wrap != nil {
		cfg.Wrap(wrap)
	}
	return newAuthorizer(cfg, authorizedTTL, unauthorizedTTL, defaultBackoff(), nil)
}

func loadConfig(kubeconfigFile string) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfigFile
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("webhook authorizer config %s: %w", kubeconfigFile, err)
	}
	cfg.Timeout = requestTimeout
	// the server limits what it serves; its webhook is not rate limited here
	cfg.QPS = -1
	return cfg, nil
}

// newAuthorizer lets tests pick the backoff and the cache's clock (nil
// means the real one).
func newAuthorizer(cfg *rest.Config, authorizedTTL, unauthorizedTTL time.Duration, backoff wait.Backoff, clock cache.Clock) (*Authorizer, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.ContentType = "application/json"
	cfg.AcceptContentTypes = "application/json"
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	client, err := rest.UnversionedRESTClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("webhook authorizer client: %w", err)
	}
	c := cache.NewLRUExpireCache(cacheSize)
	if clock != nil {
		c = cache.NewLRUExpireCacheWithClock(cacheSize, clock)
	}
	return &Authorizer{client: client, cache: c, authorizedTTL: authorizedTTL, unauthorizedTTL: unauthorizedTTL, backoff: backoff}, nil
}

// Authorize asks the webhook (or the cache) about a. Only status.denied
// denies; allowed=false without it is no opinion. A failed call is no
// opinion with the error.
func (w *Authorizer) Authorize(ctx context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	review := &authorizationv1.SubjectAccessReview{Spec: specFor(a)}
	key, err := json.Marshal(review.Spec)
	if err != nil {
		return authorizer.DecisionNoOpinion, "", err
	}
	if cached, ok := w.cache.Get(string(key)); ok {
		review.Status = cached.(authorizationv1.SubjectAccessReviewStatus)
	} else {
		result, err := w.create(ctx, review)
		if err != nil {
			return authorizer.DecisionNoOpinion, "", fmt.Errorf("webhook authorizer: %w", err)
		}
		review.Status = result.Status
		if cacheable(a) {
			ttl := w.unauthorizedTTL
			if review.Status.Allowed {
				ttl = w.authorizedTTL
			}
			if ttl > 0 {
				w.cache.Add(string(key), review.Status, ttl)
			}
		}
	}
	s := review.Status
	switch {
	case s.Denied && s.Allowed:
		return authorizer.DecisionDeny, s.Reason, errBothAllowedAndDenied
	case s.Denied:
		return authorizer.DecisionDeny, s.Reason, nil
	case s.Allowed:
		return authorizer.DecisionAllow, s.Reason, nil
	}
	return authorizer.DecisionNoOpinion, s.Reason, nil
}

// RulesFor cannot list rules: the answer is incomplete, with upstream's
// error.
func (*Authorizer) RulesFor(context.Context, user.Info, string) ([]authorizer.ResourceRule, []authorizer.NonResourceRule, bool, error) {
	return nil, nil, true, errNoRules
}

// specFor is the review of a.
func specFor(a authorizer.Attributes) authorizationv1.SubjectAccessReviewSpec {
	var spec authorizationv1.SubjectAccessReviewSpec
	if u := a.User; u != nil {
		spec.User, spec.UID, spec.Groups = u.GetName(), u.GetUID(), u.GetGroups()
		if extra := u.GetExtra(); extra != nil {
			spec.Extra = make(map[string]authorizationv1.ExtraValue, len(extra))
			for k, v := range extra {
				spec.Extra[k] = authorizationv1.ExtraValue(v)
			}
		}
	}
	if a.ResourceRequest {
		spec.ResourceAttributes = &authorizationv1.ResourceAttributes{
			Namespace:   a.Namespace,
			Verb:        a.Verb,
			Group:       a.APIGroup,
			Version:     a.APIVersion,
			Resource:    a.Resource,
			Subresource: a.Subresource,
			Name:        a.Name,
		}
		if r := fieldRequirements(a); len(r) > 0 {
			spec.ResourceAttributes.FieldSelector = &authorizationv1.FieldSelectorAttributes{Requirements: r}
		}
		if r := labelRequirements(a); len(r) > 0 {
			spec.ResourceAttributes.LabelSelector = &authorizationv1.LabelSelectorAttributes{Requirements: r}
		}
	} else {
		spec.NonResourceAttributes = &authorizationv1.NonResourceAttributes{Path: a.Path, Verb: a.Verb}
	}
	return spec
}

func cacheable(a authorizer.Attributes) bool {
	size := len(a.Namespace) + len(a.Verb) + len(a.APIGroup) + len(a.APIVersion) +
		len(a.Resource) + len(a.Subresource) + len(a.Name) + len(a.Path)
	return size < maxCachedAttrSize
}
