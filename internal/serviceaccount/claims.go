package serviceaccount

import (
	"time"

	"github.com/go-jose/go-jose/v4/jwt"
)

const (
	// WarnOnlyBoundTokenExpirationSeconds is the expiration kubelets ask
	// for on projected tokens (an hour and 7 seconds). With
	// --service-account-extend-token-expiration such pod-bound tokens are
	// valid for ExpirationExtensionSeconds and only warned about after
	// the hour, so workloads that do not reload their token keep working.
	WarnOnlyBoundTokenExpirationSeconds = 60*60 + 7

	// ExpirationExtensionSeconds is how long an extended token is valid:
	// a year.
	ExpirationExtensionSeconds = 24 * 365 * 60 * 60

	// usernamePrefix starts the user name of every service account.
	usernamePrefix = "system:serviceaccount:"
)

// Claims are the claims of a bound service-account token, as
// kube-apiserver writes them.
type Claims struct {
	Issuer    string           `json:"iss,omitempty"`
	Subject   string           `json:"sub,omitempty"`
	Audience  []string         `json:"aud,omitempty"` // a list even with one audience, as upstream
	Expiry    *jwt.NumericDate `json:"exp,omitempty"`
	NotBefore *jwt.NumericDate `json:"nbf,omitempty"`
	IssuedAt  *jwt.NumericDate `json:"iat,omitempty"`
	ID        string           `json:"jti,omitempty"`
	// Kubernetes is the private "kubernetes.io" claim.
	Kubernetes *KubernetesClaims `json:"kubernetes.io,omitempty"`
}

// KubernetesClaims say which service account a token is for and which
// object it is bound to: the token is valid only while that object exists.
type KubernetesClaims struct {
	Namespace      string `json:"namespace,omitempty"`
	ServiceAccount Ref    `json:"serviceaccount"`
	Pod            *Ref   `json:"pod,omitempty"`
	Secret         *Ref   `json:"secret,omitempty"`
	// Node is the node a token is bound to, or the node of the pod it is
	// bound to.
	Node *Ref `json:"node,omitempty"`
	// WarnAfter is set on extended tokens: past it the token still works
	// but its use is flagged as stale.
	WarnAfter *jwt.NumericDate `json:"warnafter,omitempty"`
}

// Ref names an object and pins its UID.
type Ref struct {
	Name string `json:"name,omitempty"`
	UID  string `json:"uid,omitempty"`
}

// MakeUsername is the user name of a service account:
// system:serviceaccount:<namespace>:<name>.
func MakeUsername(namespace, name string) string {
	return usernamePrefix + namespace + ":" + name
}

// NewClaims returns the claims of a token for service account sa of
// namespace, for audiences, valid from now for expiration. The caller adds
// the bound object; the Issuer fills in iss and jti.
func NewClaims(now time.Time, namespace string, sa Ref, audiences []string, expiration time.Duration) *Claims {
	return &Claims{
		Subject:   MakeUsername(namespace, sa.Name),
		Audience:  audiences,
		IssuedAt:  jwt.NewNumericDate(now),
		NotBefore: jwt.NewNumericDate(now),
		Expiry:    jwt.NewNumericDate(now.Add(expiration)),
		Kubernetes: &KubernetesClaims{
			Namespace:      namespace,
			ServiceAccount: sa,
		},
	}
}
