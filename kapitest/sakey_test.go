package kapitest

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// TestServiceAccountTokens: a test server signs service-account tokens
// with its own ES256 key, and authenticates them; another server does not.
func TestServiceAccountTokens(t *testing.T) {
	ctx := t.Context()
	issue := func(cs kubernetes.Interface) string {
		t.Helper()
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "robot"}}
		if _, err := cs.CoreV1().ServiceAccounts("default").Create(ctx, sa, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		tr, err := cs.CoreV1().ServiceAccounts("default").CreateToken(ctx, "robot", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return tr.Status.Token
	}
	review := func(cs kubernetes.Interface, token string) *authenticationv1.TokenReviewStatus {
		t.Helper()
		r, err := cs.AuthenticationV1().TokenReviews().Create(ctx, &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: token}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return &r.Status
	}
	a := kubernetes.NewForConfigOrDie(Start(t))
	b := kubernetes.NewForConfigOrDie(Start(t))
	token := issue(a)

	header, _, _ := strings.Cut(token, ".")
	raw, err := base64.RawURLEncoding.DecodeString(header)
	if err != nil {
		t.Fatal(err)
	}
	var h struct{ Alg string }
	if err := json.Unmarshal(raw, &h); err != nil || h.Alg != "ES256" {
		t.Errorf("token header %s (%v), want alg ES256", raw, err)
	}
	if st := review(a, token); !st.Authenticated || st.User.Username != "system:serviceaccount:default:robot" {
		t.Errorf("the issuing server's review: %+v", st)
	}
	issue(b) // the same account exists on b
	if st := review(b, token); st.Authenticated {
		t.Errorf("another server authenticated the token: %+v", st)
	}
}
