package controlplane

import (
	"crypto/tls"
	"testing"

	"github.com/kapi-dev/kapi/internal/pki"
)

// Clients asking for loopbackServerName get the loopback certificate;
// every other client gets what the serving certificates choose.
func TestWithLoopbackCertificate(t *testing.T) {
	loopback, _, err := pki.SelfSigned(loopbackServerName)
	if err != nil {
		t.Fatal(err)
	}
	serving := &tls.Certificate{}
	get := withLoopbackCertificate(func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return serving, nil }, &loopback)
	for _, tc := range []struct {
		serverName string
		want       *tls.Certificate
	}{
		{loopbackServerName, &loopback},
		{"", serving},
		{"localhost", serving},
		{"kubernetes.default.svc", serving},
	} {
		got, err := get(&tls.ClientHelloInfo{ServerName: tc.serverName})
		if err != nil || got != tc.want {
			t.Errorf("ServerName %q: got %p (err %v), want %p", tc.serverName, got, err, tc.want)
		}
	}
}
