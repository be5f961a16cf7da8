// Package bootstrap authenticates bootstrap tokens ("<id>.<secret>", as
// kubeadm hands to joining nodes) against the Secrets
// kube-system/bootstrap-token-<id> that describe them.
package bootstrap

import (
	"context"
	"crypto/subtle"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kapi-dev/kapi/internal/auth/authenticator"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

// The Secret layout, as kubeadm and the cluster-bootstrap library write it.
const (
	// Namespace holds the bootstrap token Secrets.
	Namespace = "kube-system"
	// SecretPrefix followed by the token id names a token's Secret.
	SecretPrefix = "bootstrap-token-"

	keyTokenID       = "token-id"
	keyTokenSecret   = "token-secret"
	keyExpiration    = "expiration"
	keyUsageAuthn    = "usage-bootstrap-authentication"
	keyExtraGroups   = "auth-extra-groups"
	userPrefix       = "system:bootstrap:"
	defaultGroup     = "system:bootstrappers"
	idLength         = 6
	secretLength     = 16
	tokenSeparator   = '.'
	extraGroupPrefix = defaultGroup + ":"
	maxExtraSuffix   = 256
)

// SecretGetter reads a Secret in kube-system by name; a missing Secret is an
// apierrors NotFound error.
type SecretGetter func(ctx context.Context, name string) (*corev1.Secret, error)

type tokenAuthenticator struct {
	get SecretGetter
	now func() time.Time
}

var _ authenticator.Token = (*tokenAuthenticator)(nil)

// New returns a Token authenticator for bootstrap tokens, read through get.
func New(get SecretGetter) authenticator.Token {
	return NewWithClock(get, time.Now)
}

// NewWithClock is New with the clock that decides expiry.
func NewWithClock(get SecretGetter, now func() time.Time) authenticator.Token {
	return &tokenAuthenticator{get: get, now: now}
}

// AuthenticateToken implements authenticator.Token. As upstream, only a
// failure to read the Secret is an error: a token that is not of the
// bootstrap form, or whose Secret is missing, deleted, of the wrong type,
// expired, not for authentication or holds another secret, is no opinion,
// which the bearer authenticator answers with a generic "invalid bearer
// token" — so a client learns nothing about which check failed.
func (a *tokenAuthenticator) AuthenticateToken(ctx context.Context, token string) (*authenticator.Response, bool, error) {
	id, secretPart, ok := parseToken(token)
	if !ok {
		return nil, false, nil
	}
	name := SecretPrefix + id
	secret, err := a.get(ctx, name)
	if apierrors.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("getting secret %s/%s: %w", Namespace, name, err)
	}
	if secret == nil || !a.usable(secret, id, secretPart) {
		return nil, false, nil
	}
	groups, ok := groupsOf(secret)
	if !ok {
		return nil, false, nil
	}
	return &authenticator.Response{User: &user.DefaultInfo{
		Name:   userPrefix + id,
		Groups: groups,
	}}, true, nil
}

// usable checks the Secret may authenticate this token now.
func (a *tokenAuthenticator) usable(s *corev1.Secret, id, secretPart string) bool {
	if s.DeletionTimestamp != nil || s.Type != corev1.SecretTypeBootstrapToken || s.Data == nil {
		return false
	}
	if subtle.ConstantTimeCompare(s.Data[keyTokenSecret], []byte(secretPart)) != 1 {
		return false
	}
	if string(s.Data[keyTokenID]) != id {
		return false
	}
	if expired(s, a.now()) {
		return false
	}
	return string(s.Data[keyUsageAuthn]) == "true"
}

// expired reports a token past its expiration; an expiration that does not
// parse counts as passed, so a typo cannot make a token immortal.
func expired(s *corev1.Secret, now time.Time) bool {
	_, gone := Expiration(s, now)
	return gone
}

// groupsOf returns system:bootstrappers plus the valid auth-extra-groups,
// sorted and without repeats; any invalid entry rejects the token.
func groupsOf(s *corev1.Secret) ([]string, bool) {
	groups := []string{defaultGroup}
	extra := string(s.Data[keyExtraGroups])
	if extra == "" {
		return groups, true
	}
	for g := range strings.SplitSeq(extra, ",") {
		if !validExtraGroup(g) {
			return nil, false
		}
		groups = append(groups, g)
	}
	slices.Sort(groups)
	return slices.Compact(groups), true
}

// validExtraGroup reports whether g matches upstream's pattern
// system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9], so a token Secret cannot
// grant membership of an arbitrary group. Checked by hand: the bounded
// repetition makes the regexp costly on every request.
func validExtraGroup(g string) bool {
	rest, ok := strings.CutPrefix(g, extraGroupPrefix)
	if !ok || rest == "" || len(rest) > maxExtraSuffix {
		return false
	}
	for i := range len(rest) {
		if c := rest[i]; !isLowerAlnum(c) && (c != ':' && c != '-' || i == len(rest)-1) {
			return false
		}
	}
	return true
}

// parseToken splits "<id>.<secret>", id six and secret sixteen characters
// of [a-z0-9].
func parseToken(token string) (id, secret string, ok bool) {
	if len(token) != idLength+1+secretLength || token[idLength] != tokenSeparator {
		return "", "", false
	}
	id, secret = token[:idLength], token[idLength+1:]
	if !lowerAlnum(id) || !lowerAlnum(secret) {
		return "", "", false
	}
	return id, secret, true
}

func lowerAlnum(s string) bool {
	for i := range len(s) {
		if !isLowerAlnum(s[i]) {
			return false
		}
	}
	return true
}

func isLowerAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9'
}
