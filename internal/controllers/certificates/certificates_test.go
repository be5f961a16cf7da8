package certificates_test

import (
	"net"
	"strings"
	"testing"

	certificatesv1 "k8s.io/api/certificates/v1"

	. "github.com/kapi-dev/kapi/internal/controllers/certificates"
	"github.com/kapi-dev/kapi/internal/controllers/certificates/certtest"
)

// TestValidateKubeletCSRs pins upstream's refusals, message for message.
func TestValidateKubeletCSRs(t *testing.T) {
	client := []certificatesv1.KeyUsage{"digital signature", "key encipherment", "client auth"}
	serving := []certificatesv1.KeyUsage{"digital signature", "server auth"}
	node := certtest.RequestTemplate{CommonName: "system:node:n1", Organizations: []string{"system:nodes"}}
	withDNS := node
	withDNS.DNSNames = []string{"n1"}
	withIP := node
	withIP.IPs = []net.IP{net.ParseIP("10.0.0.1")}
	tests := []struct {
		name    string
		serving bool
		req     certtest.RequestTemplate
		usages  []certificatesv1.KeyUsage
		wantErr string
	}{
		{name: "client ok", req: node, usages: client},
		{name: "client without RSA usage", req: node, usages: []certificatesv1.KeyUsage{"client auth", "digital signature"}},
		{name: "client wrong org", req: certtest.RequestTemplate{CommonName: "system:node:n1"}, usages: client, wantErr: "subject organization is not system:nodes"},
		{name: "client wrong CN", req: certtest.RequestTemplate{CommonName: "n1", Organizations: []string{"system:nodes"}}, usages: client, wantErr: "subject common name does not begin with system:node:"},
		{name: "client with DNS", req: withDNS, usages: client, wantErr: "DNS subjectAltNames are not allowed"},
		{name: "client with IP", req: withIP, usages: client, wantErr: "IP subjectAltNames are not allowed"},
		{name: "client server usage", req: node, usages: serving, wantErr: "usages did not match [client auth digital signature key encipherment]"},
		{name: "serving ok", serving: true, req: withDNS, usages: serving},
		{name: "serving without SAN", serving: true, req: node, usages: serving, wantErr: "DNS or IP subjectAltName is required"},
		{name: "serving client usage", serving: true, req: withIP, usages: client, wantErr: "usages did not match [digital signature key encipherment server auth]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := certtest.NewRequestPEM(tt.req)
			if err != nil {
				t.Fatal(err)
			}
			req, err := ParseCSR(p)
			if err != nil {
				t.Fatal(err)
			}
			validate := ValidateKubeletClientCSR
			if tt.serving {
				validate = ValidateKubeletServingCSR
			}
			err = validate(req, tt.usages)
			if got := errString(err); got != tt.wantErr {
				t.Errorf("got %q, want %q", got, tt.wantErr)
			}
		})
	}
}

func TestValidateAPIServerClientUsages(t *testing.T) {
	for usages, want := range map[string]string{
		"client auth":                   "",
		"digital signature,client auth": "",
		"server auth,client auth":       "invalid usage for client certificate: server auth",
		"digital signature":             "invalid usage for client certificate: missing required usage: client auth",
	} {
		var us []certificatesv1.KeyUsage
		for _, u := range splitComma(usages) {
			us = append(us, certificatesv1.KeyUsage(u))
		}
		if got := errString(ValidateAPIServerClientUsages(us)); got != want {
			t.Errorf("%s: got %q, want %q", usages, got, want)
		}
	}
}

func splitComma(s string) []string { return strings.Split(s, ",") }

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
