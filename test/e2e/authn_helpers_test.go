package e2e

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// oidcIssuer is an OpenID provider made for a test: discovery, keys, and
// ID tokens signed with its RSA key.
type oidcIssuer struct {
	srv    *httptest.Server
	key    *rsa.PrivateKey
	caFile string
}

func startOIDCIssuer(t *testing.T) *oidcIssuer {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	iss := &oidcIssuer{key: key}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{
			"issuer":                                iss.srv.URL,
			"jwks_uri":                              iss.srv.URL + "/keys",
			"response_types_supported":              []string{"id_token"},
			"subject_types_supported":               []string{"public"},
			"id_token_signing_alg_values_supported": []string{"RS256"},
		})
	})
	mux.HandleFunc("/keys", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Algorithm: "RS256", Use: "sig"}}})
	})
	iss.srv = httptest.NewTLSServer(mux)
	t.Cleanup(iss.srv.Close)
	iss.caFile = writeTestFile(t, "oidc-ca.crt", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: iss.srv.Certificate().Raw}))
	return iss
}

// token signs an ID token for audience "kapi" with claims over the
// defaults, valid for ttl (negative: already expired).
func (iss *oidcIssuer) token(t *testing.T, ttl time.Duration, claims map[string]any) string {
	t.Helper()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: iss.key}, (&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", "k1"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	all := map[string]any{"iss": iss.srv.URL, "aud": "kapi", "iat": now.Add(-time.Minute).Unix(), "exp": now.Add(ttl).Unix()}
	for k, v := range claims {
		all[k] = v
	}
	tok, err := jwt.Signed(signer).Claims(all).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// startTokenWebhook runs a TokenReview webhook that knows one token and
// returns the kubeconfig file that points at it.
func startTokenWebhook(t *testing.T, token string, user authenticationv1.UserInfo) string {
	t.Helper()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review authenticationv1.TokenReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		review.Status = authenticationv1.TokenReviewStatus{}
		if review.Spec.Token == token {
			review.Status = authenticationv1.TokenReviewStatus{Authenticated: true, User: user}
		}
		writeJSON(w, review)
	}))
	t.Cleanup(srv.Close)
	return writeWebhookKubeconfig(t, srv)
}

// writeWebhookKubeconfig writes a kubeconfig naming srv, trusting its
// certificate, in the format the webhook flags take.
func writeWebhookKubeconfig(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["webhook"] = &clientcmdapi.Cluster{
		Server:                   srv.URL,
		CertificateAuthorityData: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}),
	}
	cfg.AuthInfos["kapi"] = &clientcmdapi.AuthInfo{}
	cfg.Contexts["webhook"] = &clientcmdapi.Context{Cluster: "webhook", AuthInfo: "kapi"}
	cfg.CurrentContext = "webhook"
	path := writeTestFile(t, "webhook.kubeconfig", nil)
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
