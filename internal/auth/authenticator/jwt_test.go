package authenticator

import (
	"encoding/base64"
	"testing"
)

func TestUntrustedIssuer(t *testing.T) {
	enc := base64.RawURLEncoding.EncodeToString
	cases := map[string]string{
		enc([]byte(`{"alg":"RS256"}`)) + "." + enc([]byte(`{"iss":"https://issuer"}`)) + ".sig": "https://issuer",
		enc([]byte(`{}`)) + "." + enc([]byte(`{"sub":"x"}`)) + ".sig":                           "",
		"not-a-jwt":                           "",
		"a.b":                                 "",
		"a.!!!.c":                             "",
		`{"iss":"https://issuer"}`:            "",
		"a." + enc([]byte("not json")) + ".c": "",
	}
	for token, want := range cases {
		if got := UntrustedIssuer(token); got != want {
			t.Errorf("UntrustedIssuer(%q) = %q, want %q", token, got, want)
		}
	}
}
