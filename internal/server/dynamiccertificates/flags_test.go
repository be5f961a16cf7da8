package dynamiccertificates

import (
	"crypto/tls"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseTLSVersion(t *testing.T) {
	tests := []struct {
		in      string
		want    uint16
		wantErr string
	}{
		{in: "", want: tls.VersionTLS12},
		{in: "VersionTLS10", want: tls.VersionTLS10},
		{in: "VersionTLS11", want: tls.VersionTLS11},
		{in: "VersionTLS12", want: tls.VersionTLS12},
		{in: "VersionTLS13", want: tls.VersionTLS13},
		{in: "VersionTLS14", wantErr: `unknown tls version "VersionTLS14"`},
		{in: "versiontls12", wantErr: `unknown tls version "versiontls12"`},
		{in: "1.2", wantErr: `unknown tls version "1.2"`},
	}
	for _, tt := range tests {
		got, err := ParseTLSVersion(tt.in)
		if errString(err) != tt.wantErr || got != tt.want {
			t.Errorf("ParseTLSVersion(%q) = %#x, %q; want %#x, %q", tt.in, got, errString(err), tt.want, tt.wantErr)
		}
	}
}

func TestParseCipherSuites(t *testing.T) {
	tests := []struct {
		name    string
		in      []string
		want    []uint16
		wantErr string
	}{
		{name: "none is Go's default", in: nil, want: nil},
		{
			name: "secure, in the given order",
			in:   []string{"TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"},
			want: []uint16{tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384, tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256},
		},
		{name: "TLS 1.3 names", in: []string{"TLS_AES_128_GCM_SHA256"}, want: []uint16{tls.TLS_AES_128_GCM_SHA256}},
		{name: "insecure", in: []string{"TLS_RSA_WITH_RC4_128_SHA", "TLS_RSA_WITH_AES_128_CBC_SHA256"}, want: []uint16{tls.TLS_RSA_WITH_RC4_128_SHA, tls.TLS_RSA_WITH_AES_128_CBC_SHA256}},
		{
			name: "legacy ChaCha20 names",
			in:   []string{"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305", "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305"},
			want: []uint16{tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256, tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256},
		},
		{name: "unknown", in: []string{"TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "TLS_FOO"}, wantErr: "Cipher suite TLS_FOO not supported or doesn't exist"},
		{name: "names are case sensitive", in: []string{"tls_aes_128_gcm_sha256"}, wantErr: "Cipher suite tls_aes_128_gcm_sha256 not supported or doesn't exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseCipherSuites(tt.in)
			if errString(err) != tt.wantErr {
				t.Fatalf("error = %q, want %q", errString(err), tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseCipherSuitesKnowsEveryGoSuite(t *testing.T) {
	for _, s := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
		got, err := ParseCipherSuites([]string{s.Name})
		if err != nil || len(got) != 1 || got[0] != s.ID {
			t.Errorf("ParseCipherSuites(%s) = %v, %v; want [%#x]", s.Name, got, err, s.ID)
		}
	}
}

func TestInsecureCipherSuiteNames(t *testing.T) {
	got := InsecureCipherSuiteNames([]uint16{tls.TLS_AES_128_GCM_SHA256, tls.TLS_RSA_WITH_RC4_128_SHA, tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256})
	want := []string{"TLS_RSA_WITH_RC4_128_SHA", "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestParseSNICertKey(t *testing.T) {
	tests := []struct {
		in      string
		want    SNICertKey
		wantErr string
	}{
		{in: "foo.crt,foo.key", want: SNICertKey{CertFile: "foo.crt", KeyFile: "foo.key"}},
		{in: "  foo.crt , foo.key    ", want: SNICertKey{CertFile: "foo.crt", KeyFile: "foo.key"}},
		{in: "foo.crt,foo.key:abc", want: SNICertKey{CertFile: "foo.crt", KeyFile: "foo.key", Names: []string{"abc"}}},
		{in: "foo.crt,foo.key: abc  ", want: SNICertKey{CertFile: "foo.crt", KeyFile: "foo.key", Names: []string{"abc"}}},
		{in: "foo.crt,foo.key:*.example.com,foo.example.com", want: SNICertKey{CertFile: "foo.crt", KeyFile: "foo.key", Names: []string{"*.example.com", "foo.example.com"}}},
		{in: "foo.crt,foo.key: a , b ,c", want: SNICertKey{CertFile: "foo.crt", KeyFile: "foo.key", Names: []string{"a", "b", "c"}}},
		{in: "foo.crt,foo.key:*.*.*", want: SNICertKey{CertFile: "foo.crt", KeyFile: "foo.key", Names: []string{"*.*.*"}}},
		{in: "foo.crt,foo.key:a:b", want: SNICertKey{CertFile: "foo.crt", KeyFile: "foo.key", Names: []string{"a:b"}}},
		{in: "foo.crt,foo.key:127.0.0.1", want: SNICertKey{CertFile: "foo.crt", KeyFile: "foo.key", Names: []string{"127.0.0.1"}}},
		{in: "foo.crt,foo.key:", wantErr: "empty names list is not allowed"},
		{in: "foo.crt,foo.key:  ", wantErr: "empty names list is not allowed"},
		{in: "", wantErr: "expected comma separated certificate and key file paths"},
		{in: "foo.crt", wantErr: "expected comma separated certificate and key file paths"},
		{in: "foo.crt:abc", wantErr: "expected comma separated certificate and key file paths"},
		{in: "foo.crt,foo.key,bar.key", wantErr: "expected comma separated certificate and key file paths"},
	}
	for _, tt := range tests {
		got, err := ParseSNICertKey(tt.in)
		if errString(err) != tt.wantErr {
			t.Errorf("ParseSNICertKey(%q) error = %q, want %q", tt.in, errString(err), tt.wantErr)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseSNICertKey(%q) (-want +got):\n%s", tt.in, diff)
		}
		if err == nil {
			if again, err := ParseSNICertKey(got.String()); err != nil || !cmp.Equal(again, got) {
				t.Errorf("ParseSNICertKey(%q).String() = %q does not parse back: %+v, %v", tt.in, got.String(), again, err)
			}
		}
	}
}

// FuzzParseSNICertKey checks that every accepted flag value prints back to
// a value that parses to the same thing.
func FuzzParseSNICertKey(f *testing.F) {
	for _, s := range []string{"a.crt,a.key", " a.crt , a.key : x , y ", "a,b:", "a,b:c:d", ",", "a,b: , ", "a,b,c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := ParseSNICertKey(s)
		if err != nil {
			return
		}
		again, err := ParseSNICertKey(k.String())
		if err != nil {
			t.Fatalf("%q parsed to %+v, whose String %q does not parse: %v", s, k, k.String(), err)
		}
		if !cmp.Equal(again, k) {
			t.Fatalf("%q parsed to %+v, but its String %q to %+v", s, k, k.String(), again)
		}
	})
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
