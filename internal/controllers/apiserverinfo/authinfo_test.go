package apiserverinfo

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

var now = time.Date(2027, 1, 2, 3, 4, 5, 0, time.UTC)

func caPEM(t *testing.T, cn string, notAfter time.Time) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn},
		NotBefore: notAfter.Add(-48 * time.Hour), NotAfter: notAfter, IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

// TestAuthenticationData pins the ConfigMap's keys and formats: PEM
// bundles, JSON arrays, no request-header keys without a request-header
// CA, and merging with what another server wrote.
func TestAuthenticationData(t *testing.T) {
	client, front, other := caPEM(t, "client", now.Add(time.Hour)), caPEM(t, "front", now.Add(time.Hour)), caPEM(t, "other", now.Add(time.Hour))
	expired := caPEM(t, "expired", now.Add(-time.Hour))
	full := AuthenticationInfo{
		ClientCA: []byte(client), RequestHeaderCA: []byte(front),
		UsernameHeaders: []string{"X-Remote-User"}, GroupHeaders: []string{"X-Remote-Group"},
		ExtraHeaderPrefixes: []string{"X-Remote-Extra-"}, AllowedNames: []string{"front-proxy-client"},
	}
	tests := []struct {
		name     string
		existing map[string]string
		info     AuthenticationInfo
		want     map[string]string
	}{
		{name: "client CA only", info: AuthenticationInfo{ClientCA: []byte(client)}, want: map[string]string{ClientCAKey: client}},
		{name: "with request headers", info: full, want: map[string]string{
			ClientCAKey: client, RequestHeaderCAKey: front,
			UsernameHeadersKey: `["X-Remote-User"]`, UIDHeadersKey: `[]`, GroupHeadersKey: `["X-Remote-Group"]`,
			ExtraHeaderPrefixesKey: `["X-Remote-Extra-"]`, AllowedNamesKey: `["front-proxy-client"]`,
		}},
		{name: "merged with another server's", info: full,
			existing: map[string]string{ClientCAKey: other + expired, RequestHeaderCAKey: front, UsernameHeadersKey: `["X-User"]`},
			want: map[string]string{
				ClientCAKey: other + client, RequestHeaderCAKey: front,
				UsernameHeadersKey: `["X-User","X-Remote-User"]`, UIDHeadersKey: `[]`, GroupHeadersKey: `["X-Remote-Group"]`,
				ExtraHeaderPrefixesKey: `["X-Remote-Extra-"]`, AllowedNamesKey: `["front-proxy-client"]`,
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := authenticationData(tt.existing, tt.info, now)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Errorf("keys %v, want %v", keys(got), keys(tt.want))
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
		})
	}
}

func keys(m map[string]string) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return strings.Join(ks, ",")
}

// TestLegacyTrackingData: the first day is kept; a missing or malformed
// one becomes today's.
func TestLegacyTrackingData(t *testing.T) {
	for _, tt := range []struct {
		name     string
		existing *corev1.ConfigMap
		want     string
	}{
		{name: "absent", want: "2027-01-02"},
		{name: "kept", existing: &corev1.ConfigMap{Data: map[string]string{LegacyTokenTrackingKey: "2025-05-05"}}, want: "2025-05-05"},
		{name: "malformed", existing: &corev1.ConfigMap{Data: map[string]string{LegacyTokenTrackingKey: "yesterday"}}, want: "2027-01-02"},
	} {
		if got := legacyTrackingData(tt.existing, now)[LegacyTokenTrackingKey]; got != tt.want {
			t.Errorf("%s: since = %q, want %q", tt.name, got, tt.want)
		}
	}
}
