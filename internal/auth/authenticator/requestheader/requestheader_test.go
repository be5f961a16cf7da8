package requestheader

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/internal/auth/user"
)

func standardOptions(roots *x509.CertPool) Options {
	return Options{
		ClientCA:            func() *x509.CertPool { return roots },
		UsernameHeaders:     []string{"X-Remote-User"},
		UIDHeaders:          []string{"X-Remote-Uid"},
		GroupHeaders:        []string{"X-Remote-Group"},
		ExtraHeaderPrefixes: []string{"X-Remote-Extra-"},
	}
}

func TestAuthenticateRequest(t *testing.T) {
	proxyCA := newCA(t, "front-proxy-ca", nil)
	intermediate := newCA(t, "front-proxy-intermediate", proxyCA)
	otherCA := newCA(t, "client-ca", nil)
	proxy := proxyCA.leaf(t, "front-proxy-client", x509.ExtKeyUsageClientAuth)
	anyUsage := proxyCA.leaf(t, "front-proxy-client", x509.ExtKeyUsageAny)
	noEKU := proxyCA.leaf(t, "front-proxy-client")
	serving := proxyCA.leaf(t, "front-proxy-client", x509.ExtKeyUsageServerAuth)
	other := proxyCA.leaf(t, "someone-else", x509.ExtKeyUsageClientAuth)
	viaIntermediate := intermediate.leaf(t, "front-proxy-client", x509.ExtKeyUsageClientAuth)
	foreign := otherCA.leaf(t, "front-proxy-client", x509.ExtKeyUsageClientAuth)
	expired := proxyCA.expiredLeaf(t, "front-proxy-client")

	aliceHeaders := http.Header{
		"X-Remote-User":  {"alice"},
		"X-Remote-Uid":   {"uid-1"},
		"X-Remote-Group": {"dev", "", "ops"},
		"Accept":         {"application/json"},
	}
	alice := &user.DefaultInfo{Name: "alice", UID: "uid-1", Groups: []string{"dev", "ops"}, Extra: map[string][]string{}}

	tests := []struct {
		name    string
		opts    func(Options) Options
		certs   []*x509.Certificate
		noTLS   bool
		header  http.Header
		want    *user.DefaultInfo
		wantErr string
		kept    []string // headers that must survive besides Accept
	}{
		{name: "no TLS", noTLS: true, header: aliceHeaders},
		{name: "no client certificate", header: aliceHeaders},
		{name: "no client CA func", certs: []*x509.Certificate{proxy}, header: aliceHeaders,
			opts: func(o Options) Options { o.ClientCA = nil; return o }},
		{name: "client CA not loaded", certs: []*x509.Certificate{proxy}, header: aliceHeaders,
			opts: func(o Options) Options { o.ClientCA = func() *x509.CertPool { return nil }; return o }},
		{name: "proxy", certs: []*x509.Certificate{proxy}, header: aliceHeaders, want: alice},
		{name: "any usage", certs: []*x509.Certificate{anyUsage}, header: aliceHeaders, want: alice},
		{name: "no extended usage means any", certs: []*x509.Certificate{noEKU}, header: aliceHeaders, want: alice},
		{name: "through an intermediate", certs: []*x509.Certificate{viaIntermediate, intermediate.cert}, header: aliceHeaders, want: alice},
		{name: "intermediate missing", certs: []*x509.Certificate{viaIntermediate}, header: aliceHeaders,
			wantErr: "verifying front-proxy client certificate: x509: certificate signed by unknown authority"},
		{name: "another CA", certs: []*x509.Certificate{foreign}, header: aliceHeaders,
			wantErr: "verifying front-proxy client certificate: x509: certificate signed by unknown authority"},
		{name: "serving certificate", certs: []*x509.Certificate{serving}, header: aliceHeaders,
			wantErr: "x509: certificate specifies an incompatible key usage"},
		{name: "expired", certs: []*x509.Certificate{expired}, header: aliceHeaders,
			wantErr: "x509: certificate has expired or is not yet valid"},
		{name: "allowed name", certs: []*x509.Certificate{proxy}, header: aliceHeaders, want: alice,
			opts: func(o Options) Options { o.AllowedNames = []string{"x", "front-proxy-client"}; return o }},
		{name: "name not allowed", certs: []*x509.Certificate{other}, header: aliceHeaders,
			opts:    func(o Options) Options { o.AllowedNames = []string{"front-proxy-client"}; return o },
			wantErr: "x509: subject with cn=someone-else is not in the allowed list"},
		{name: "no username header", certs: []*x509.Certificate{proxy}, header: http.Header{"X-Remote-Group": {"dev"}}},
		{name: "empty username header", certs: []*x509.Certificate{proxy}, header: http.Header{"X-Remote-User": {""}}},
		{
			name:  "first non-empty username header wins, group headers all count",
			certs: []*x509.Certificate{proxy},
			opts: func(o Options) Options {
				o.UsernameHeaders = []string{" X-Remote-User ", "", "X-Proxy-User", "X-Third-User"}
				o.UIDHeaders = []string{"X-Remote-Uid", "X-Proxy-Uid"}
				o.GroupHeaders = []string{"X-Remote-Group", "X-Proxy-Group"}
				return o
			},
			header: http.Header{
				"X-Remote-User": {""}, "X-Proxy-User": {"bob", "ignored"}, "X-Third-User": {"carol"},
				"X-Proxy-Uid":   {"uid-2"},
				"X-Proxy-Group": {"b"}, "X-Remote-Group": {"a"},
			},
			want: &user.DefaultInfo{Name: "bob", UID: "uid-2", Groups: []string{"a", "b"}, Extra: map[string][]string{}},
		},
		{
			name:  "extras",
			certs: []*x509.Certificate{proxy},
			opts: func(o Options) Options {
				o.ExtraHeaderPrefixes = []string{"X-Remote-Extra-", "X-Other-Extra-"}
				return o
			},
			header: http.Header{
				"X-Remote-User":                         {"alice"},
				"X-Remote-Extra-Scopes":                 {"a", "b"},
				"X-Remote-Extra-Example.com%2fproject":  {"p1"},
				"X-Remote-Extra-Example.com%2Fproject":  {"p2"},
				"X-Remote-Extra-Bad%zzescape":           {"kept"},
				"X-Remote-Extra-":                       {"empty key"},
				"X-Other-Extra-Scopes":                  {"c"},
				"X-Remote-Extrascopes":                  {"not prefixed"},
				"X-Remote-Extra-Authentication.k8s.io%": {"dangling"},
			},
			kept: []string{"X-Remote-Extrascopes"},
			want: &user.DefaultInfo{Name: "alice", Groups: []string{}, Extra: map[string][]string{
				"scopes":                 {"a", "b", "c"},
				"example.com/project":    {"p2", "p1"},
				"bad%zzescape":           {"kept"},
				"":                       {"empty key"},
				"authentication.k8s.io%": {"dangling"},
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := standardOptions(proxyCA.pool())
			if tt.opts != nil {
				opts = tt.opts(opts)
			}
			req := httptest.NewRequest("GET", "/api", nil)
			req.Header = tt.header.Clone()
			req.TLS = &tls.ConnectionState{PeerCertificates: tt.certs}
			if tt.noTLS {
				req.TLS = nil
			}
			resp, ok, err := New(opts).AuthenticateRequest(req)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
			} else if err != nil {
				t.Fatalf("err = %v", err)
			}
			if ok != (tt.want != nil) {
				t.Fatalf("ok = %v, want %v", ok, tt.want != nil)
			}
			if ok {
				if diff := cmp.Diff(tt.want, resp.User); diff != "" {
					t.Errorf("user (-want +got):\n%s", diff)
				}
			} else if resp != nil {
				t.Errorf("response %+v without ok", resp)
			}
			wantHeader := http.Header{}
			for _, name := range append([]string{"Accept"}, tt.kept...) {
				if v, ok := tt.header[name]; ok {
					wantHeader[name] = v
				}
			}
			if diff := cmp.Diff(wantHeader, req.Header); diff != "" {
				t.Errorf("headers after (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSpoofedHeadersRemoved checks that a direct client's identity headers
// are deleted in any spelling, even ones net/http would not canonicalize.
func TestSpoofedHeadersRemoved(t *testing.T) {
	a := New(standardOptions(newCA(t, "ca", nil).pool()))
	req := httptest.NewRequest("GET", "/api", nil)
	req.Header = http.Header{
		"x-remote-user":         {"admin"},
		"X-REMOTE-GROUP":        {"system:masters"},
		"X-Remote-Uid":          {"0"},
		"x-remote-extra-scopes": {"all"},
		"X-Remote-Extra-Foo":    {"bar"},
		"Authorization":         {"Bearer token"},
		"X-Remote-Username":     {"not ours"},
	}
	if _, ok, err := a.AuthenticateRequest(req); ok || err != nil {
		t.Fatalf("AuthenticateRequest() = ok %v, err %v; want no opinion", ok, err)
	}
	want := http.Header{"Authorization": {"Bearer token"}, "X-Remote-Username": {"not ours"}}
	if diff := cmp.Diff(want, req.Header); diff != "" {
		t.Errorf("headers after (-want +got):\n%s", diff)
	}
}

// TestClientCAReloaded checks the pool is asked on every request.
func TestClientCAReloaded(t *testing.T) {
	first, second := newCA(t, "first", nil), newCA(t, "second", nil)
	current := first
	opts := standardOptions(nil)
	opts.ClientCA = func() *x509.CertPool { return current.pool() }
	a := New(opts)
	authAs := func(ca *issuer) bool {
		req := httptest.NewRequest("GET", "/api", nil)
		req.Header.Set("X-Remote-User", "alice")
		req.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{ca.leaf(t, "proxy", x509.ExtKeyUsageClientAuth)}}
		_, ok, _ := a.AuthenticateRequest(req)
		return ok
	}
	if !authAs(first) || authAs(second) {
		t.Fatal("first CA should be trusted, second not")
	}
	current = second
	if authAs(first) || !authAs(second) {
		t.Fatal("after reload the second CA should be trusted, the first not")
	}
}

func TestExtraKey(t *testing.T) {
	tests := map[string]string{
		"Scopes":                "scopes",
		"Example.com%2FProject": "example.com/project",
		"example.com%2fproject": "example.com/project",
		"%E2%9C%93":             "✓",
		"100%":                  "100%",
		"%zz":                   "%zz",
		"A%20B":                 "a b",
		"a+b":                   "a+b",
		"":                      "",
	}
	for in, want := range tests {
		if got := extraKey(in); got != want {
			t.Errorf("extraKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzRequestHeaderExtra checks extra-key decoding never panics, and that
// any key a proxy percent-escapes (with no upper-case letters to lose)
// arrives as it was sent.
func FuzzRequestHeaderExtra(f *testing.F) {
	for _, s := range []string{"scopes", "example.com/project", "%", "%2", "%zz", "a b", "\xff", "✓", "UPPER", "%2F%2f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		got := extraKey(key)
		if !strings.Contains(key, "%") && got != strings.ToLower(key) {
			t.Fatalf("extraKey(%q) = %q, want it lower-cased only", key, got)
		}
		if strings.ToLower(key) != key {
			return
		}
		if sent := url.PathEscape(key); extraKey(sent) != key {
			t.Fatalf("key %q sent as %q arrived as %q", key, sent, extraKey(sent))
		}
		// Through a real request as well, in the header's canonical form.
		req := httptest.NewRequest("GET", "/", nil)
		req.Header.Set("X-Remote-Extra-"+url.PathEscape(key), "v")
		extra := extras(req.Header, []string{"X-Remote-Extra-"})
		if _, ok := extra[key]; !ok {
			t.Fatalf("key %q not found in %v", key, extra)
		}
	})
}

func BenchmarkAuthenticateRequest(b *testing.B) {
	ca := newCA(b, "ca", nil)
	cert := ca.leaf(b, "front-proxy-client", x509.ExtKeyUsageClientAuth)
	a := New(standardOptions(ca.pool()))
	for b.Loop() {
		req := httptest.NewRequest("GET", "/api", nil)
		req.Header.Set("X-Remote-User", "alice")
		req.Header.Add("X-Remote-Group", "dev")
		req.Header.Set("X-Remote-Extra-Scopes", "a")
		req.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{cert}}
		if _, ok, err := a.AuthenticateRequest(req); !ok {
			b.Fatal(err)
		}
	}
}
