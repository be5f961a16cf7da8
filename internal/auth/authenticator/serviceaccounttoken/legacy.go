package serviceaccounttoken

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"time"

	"github.com/go-jose/go-jose/v4/jwt"
	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"

	"github.com/kapi-dev/kapi/internal/serviceaccount"
)

// legacyTokenLastUsedLabel records the day (UTC, 2006-01-02) a legacy
// token last authenticated.
const legacyTokenLastUsedLabel = "kubernetes.io/legacy-token-last-used"

// legacyTokenInvalidSinceLabel marks a legacy token secret that the
// token cleaner has invalidated.
const legacyTokenInvalidSinceLabel = "kubernetes.io/legacy-token-invalid-since"

// legacyClaims are the private claims of a secret-based token, written by
// the tokens controller at the top level of the payload.
type legacyClaims struct {
	ServiceAccountName string `json:"kubernetes.io/serviceaccount/service-account.name,omitempty"`
	ServiceAccountUID  string `json:"kubernetes.io/serviceaccount/service-account.uid,omitempty"`
	SecretName         string `json:"kubernetes.io/serviceaccount/secret.name,omitempty"`
	Namespace          string `json:"kubernetes.io/serviceaccount/namespace,omitempty"`
}

// validateLegacy checks a secret-based token: its claims agree with each
// other and, with lookup on, the secret still holds this very token and
// the service account still exists with the same UID.
func (a *tokenAuthenticator) validateLegacy(ctx context.Context, token string, public *jwt.Claims, c *legacyClaims) (*saInfo, error) {
	switch {
	case public.Subject == "":
		return nil, errors.New("sub claim is missing")
	case c.Namespace == "":
		return nil, errors.New("namespace claim is missing")
	case c.SecretName == "":
		return nil, errors.New("secretName claim is missing")
	case c.ServiceAccountName == "":
		return nil, errors.New("serviceAccountName claim is missing")
	case c.ServiceAccountUID == "":
		return nil, errors.New("serviceAccountUID claim is missing")
	}
	if !subjectNames(public.Subject, c.Namespace, c.ServiceAccountName) {
		return nil, errors.New("sub claim is invalid")
	}
	info := &saInfo{namespace: c.Namespace, name: c.ServiceAccountName, uid: c.ServiceAccountUID, credentialID: credentialIDForJTI(public.ID)}
	if !a.lookup {
		return info, nil
	}
	if a.getter == nil {
		return nil, errNotValidated
	}
	secret, err := a.getter.GetSecret(ctx, c.Namespace, c.SecretName)
	if err != nil || secret.DeletionTimestamp != nil {
		return nil, errInvalidated
	}
	if subtle.ConstantTimeCompare(secret.Data[corev1.ServiceAccountTokenKey], []byte(token)) != 1 {
		return nil, errors.New("service account token does not match server's copy")
	}
	sa, err := a.getter.GetServiceAccount(ctx, c.Namespace, c.ServiceAccountName)
	if err != nil {
		return nil, err
	}
	if sa.DeletionTimestamp != nil {
		return nil, fmt.Errorf("service account %s/%s has been deleted", c.Namespace, c.ServiceAccountName)
	}
	if string(sa.UID) != c.ServiceAccountUID {
		return nil, fmt.Errorf("service account UID (%s) does not match claim (%s)", sa.UID, c.ServiceAccountUID)
	}
	if secret.Labels[legacyTokenInvalidSinceLabel] != "" {
		return nil, errInvalidated
	}
	a.recordUse(ctx, secret)
	return info, nil
}

// recordUse labels the Secret with today's date once a day, so the legacy
// token cleaner never retires a token in use. A failure to write only
// delays the record to the next use.
func (a *tokenAuthenticator) recordUse(ctx context.Context, secret *corev1.Secret) {
	if a.secretWriter == nil {
		return
	}
	now := time.Now
	if a.now != nil {
		now = a.now
	}
	today := now().UTC().Format("2006-01-02")
	if secret.Labels[legacyTokenLastUsedLabel] == today {
		return
	}
	secret = secret.DeepCopy()
	if secret.Labels == nil {
		secret.Labels = map[string]string{}
	}
	secret.Labels[legacyTokenLastUsedLabel] = today
	_ = a.secretWriter.UpdateSecret(ctx, secret)
}

// subjectNames reports whether sub is system:serviceaccount:<ns>:<name>
// with a valid namespace and name, as upstream's SplitUsername requires.
func subjectNames(sub, namespace, name string) bool {
	if sub != serviceaccount.MakeUsername(namespace, name) {
		return false
	}
	return len(apivalidation.ValidateNamespaceName(namespace, false)) == 0 &&
		len(apivalidation.ValidateServiceAccountName(name, false)) == 0
}
