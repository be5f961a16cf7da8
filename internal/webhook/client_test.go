package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

type echoMsg struct {
	Value string `json:"value"`
	Path  string `json:"path,omitempty"`
	Host  string `json:"host,omitempty"`
}

// echo answers the value it was sent, with the path and Host it was called
// on; it refuses requests without the JSON headers.
func echo(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" || r.Header.Get("Accept") != "application/json" {
		http.Error(w, fmt.Sprintf("bad request %s %q %q", r.Method, r.Header.Get("Content-Type"), r.Header.Get("Accept")), http.StatusBadRequest)
		return
	}
	var in echoMsg
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(echoMsg{Value: in.Value, Path: r.URL.Path, Host: r.Host})
}

// stubResolver sends every service to one address.
type stubResolver struct {
	addr string
	err  error
}

func (s stubResolver) ResolveEndpoint(_, _ string, _ int32) (*url.URL, error) {
	if s.err != nil {
		return nil, s.err
	}
	return &url.URL{Scheme: "https", Host: s.addr}, nil
}

func TestPostByURL(t *testing.T) {
	srv := newTLSServer(t, http.HandlerFunc(echo))
	otherCA := newTestCA(t)

	tests := []struct {
		name     string
		url      string
		caBundle []byte
		wantErr  string
	}{
		{name: "trusted CA", url: srv.URL + "/convert", caBundle: serverCAPEM(srv)},
		{name: "untrusted CA", url: srv.URL + "/convert", caBundle: otherCA.pem, wantErr: "certificate signed by unknown authority"},
		{name: "system roots", url: srv.URL + "/convert", wantErr: "certificate signed by unknown authority"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewClientManager(nil, 0).Client(ClientConfig{Name: "hook", URL: tc.url, CABundle: tc.caBundle})
			if err != nil {
				t.Fatal(err)
			}
			var out echoMsg
			err = c.Post(context.Background(), echoMsg{Value: "hello"}, &out)
			if tc.wantErr != "" {
				var callErr *ErrCallingWebhook
				if !errors.As(err, &callErr) || callErr.Status != nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, want a transport ErrCallingWebhook containing %q", err, tc.wantErr)
				}
				if !strings.HasPrefix(err.Error(), `failed calling webhook "hook": `) {
					t.Errorf("message %q does not name the webhook", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := (echoMsg{Value: "hello", Path: "/convert", Host: strings.TrimPrefix(srv.URL, "https://")}); out != want {
				t.Errorf("got %+v, want %+v", out, want)
			}
		})
	}
}

func TestPostByService(t *testing.T) {
	ca := newTestCA(t)
	// Valid only for the service's DNS name: the client must send it as
	// ServerName although it dials 127.0.0.1.
	srv := newServer(t, ca.serving(t, []string{"hook.kube-system.svc"}, nil), http.HandlerFunc(echo))
	addr := strings.TrimPrefix(srv.URL, "https://")

	tests := []struct {
		name     string
		svc      ServiceReference
		resolver ServiceResolver
		wantPath string
		wantHost string
		wantErr  string
	}{
		{name: "path appended", svc: ServiceReference{Namespace: "kube-system", Name: "hook", Path: "/convert/v1", Port: 8443},
			resolver: stubResolver{addr: addr}, wantPath: "/convert/v1", wantHost: "hook.kube-system.svc:8443"},
		{name: "default port", svc: ServiceReference{Namespace: "kube-system", Name: "hook"},
			resolver: stubResolver{addr: addr}, wantPath: "/", wantHost: "hook.kube-system.svc:443"},
		{name: "certificate not valid for the service", svc: ServiceReference{Namespace: "default", Name: "hook", Port: 443},
			resolver: stubResolver{addr: addr}, wantErr: "certificate is valid for hook.kube-system.svc, not hook.default.svc"},
		{name: "resolver fails", svc: ServiceReference{Namespace: "kube-system", Name: "hook", Port: 443},
			resolver: stubResolver{err: errors.New("no endpoints for service")}, wantErr: "no endpoints for service"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			svc := tc.svc
			c, err := NewClientManager(tc.resolver, 0).Client(ClientConfig{Name: "hook", Service: &svc, CABundle: ca.pem})
			if err != nil {
				t.Fatal(err)
			}
			var out echoMsg
			err = c.Post(context.Background(), echoMsg{Value: "v"}, &out)
			if tc.wantErr != "" {
				var callErr *ErrCallingWebhook
				if !errors.As(err, &callErr) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, want ErrCallingWebhook containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if out.Path != tc.wantPath || out.Host != tc.wantHost || out.Value != "v" {
				t.Errorf("got %+v, want path %q host %q", out, tc.wantPath, tc.wantHost)
			}
		})
	}
}

func TestClientConfigErrors(t *testing.T) {
	tests := []struct {
		name    string
		cfg     ClientConfig
		wantErr string
	}{
		{name: "neither URL nor service", cfg: ClientConfig{Name: "w"},
			wantErr: `failed calling webhook "w": webhook configuration must have either service or URL`},
		{name: "not PEM", cfg: ClientConfig{Name: "w", URL: "https://127.0.0.1", CABundle: []byte("not a certificate")},
			wantErr: `failed calling webhook "w": unable to load root certificates: unable to parse bytes as PEM block`},
		{name: "PEM without certificates", cfg: ClientConfig{Name: "w", URL: "https://127.0.0.1",
			CABundle: []byte("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")},
			wantErr: `failed calling webhook "w": unable to load root certificates: no valid certificate authority data seen`},
		{name: "broken certificate", cfg: ClientConfig{Name: "w", URL: "https://127.0.0.1",
			CABundle: []byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")},
			wantErr: `failed calling webhook "w": unable to load root certificates: failed to parse certificate: `},
		{name: "unparsable URL hides its user information", cfg: ClientConfig{Name: "w", URL: "https://user:s3cret@127.0.0.1:99999999999/%zz"},
			wantErr: `failed calling webhook "w": Unparsable URL: `},
		{name: "unsupported scheme", cfg: ClientConfig{Name: "w", URL: "ftp://127.0.0.1/"},
			wantErr: `failed calling webhook "w": unsupported URL scheme "ftp"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewClientManager(nil, 0).Client(tc.cfg)
			var callErr *ErrCallingWebhook
			if !errors.As(err, &callErr) || !strings.HasPrefix(err.Error(), tc.wantErr) {
				t.Fatalf("got %v, want ErrCallingWebhook starting %q", err, tc.wantErr)
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("error %q leaks the URL's password", err)
			}
		})
	}
}

func TestPostNon2xx(t *testing.T) {
	tests := []struct {
		name        string
		contentType string
		body        string
		code        int
		wantCode    int32
		wantMessage string
	}{
		{name: "Status body", contentType: "application/json", code: http.StatusForbidden,
			body:     `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"nope","reason":"Forbidden","code":403}`,
			wantCode: 403, wantMessage: "nope"},
		{name: "text body", contentType: "text/plain; charset=utf-8", code: http.StatusInternalServerError,
			body: "  broken backend\n", wantCode: 500, wantMessage: "an error on the server (\"broken backend\") has prevented the request from succeeding"},
		{name: "non-text body", contentType: "application/octet-stream", code: http.StatusBadGateway,
			body: "\x00\x01", wantCode: 502, wantMessage: "an error on the server (\"unknown\") has prevented the request from succeeding"},
		{name: "JSON that is not a Status", contentType: "application/json", code: http.StatusNotFound,
			body: `{"kind":"Other"}`, wantCode: 404, wantMessage: "the server could not find the requested resource"},
		{name: "long text is cut", contentType: "text/plain", code: http.StatusBadRequest,
			body: strings.Repeat("x", 3000), wantCode: 400, wantMessage: strings.Repeat("x", 2048)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newTLSServer(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", tc.contentType)
				w.WriteHeader(tc.code)
				_, _ = w.Write([]byte(tc.body))
			}))
			c, err := NewClientManager(nil, 0).Client(ClientConfig{Name: "w", URL: srv.URL, CABundle: serverCAPEM(srv)})
			if err != nil {
				t.Fatal(err)
			}
			err = c.Post(context.Background(), echoMsg{}, &echoMsg{})
			var callErr *ErrCallingWebhook
			if !errors.As(err, &callErr) || callErr.Status == nil {
				t.Fatalf("got %v, want an ErrCallingWebhook with a Status", err)
			}
			var statusErr *apierrors.StatusError
			if !errors.As(err, &statusErr) {
				t.Fatalf("errors.As cannot reach the StatusError in %v", err)
			}
			st := callErr.Status.ErrStatus
			// client-go puts the body text in the message or, for some
			// codes, in a cause.
			text := st.Message
			if st.Details != nil {
				for _, c := range st.Details.Causes {
					text += "\n" + c.Message
				}
			}
			if st.Code != tc.wantCode || !strings.Contains(text, tc.wantMessage) {
				t.Errorf("got code %d text %q, want %d containing %q", st.Code, text, tc.wantCode, tc.wantMessage)
			}
			if strings.Contains(text, strings.Repeat("x", 2049)) {
				t.Errorf("body text not cut: %d bytes", len(text))
			}
		})
	}
}

func TestPostBadAnswers(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		limit   int64
		wantErr string
	}{
		{name: "not JSON", body: "<html>", limit: maxResponseBytes, wantErr: "decoding the response: "},
		{name: "too large", body: `{"value":"0123456789"}`, limit: 10, wantErr: "the response is larger than 10 bytes"},
		{name: "at the limit", body: `{"value":"x"}`, limit: int64(len(`{"value":"x"}`))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newTLSServer(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				_, _ = w.Write([]byte(tc.body))
			}))
			m := NewClientManager(nil, 0)
			m.maxResponseBytes = tc.limit
			c, err := m.Client(ClientConfig{Name: "w", URL: srv.URL, CABundle: serverCAPEM(srv)})
			if err != nil {
				t.Fatal(err)
			}
			var out echoMsg
			err = c.Post(context.Background(), echoMsg{}, &out)
			if tc.wantErr == "" {
				if err != nil || out.Value != "x" {
					t.Fatalf("got %+v, %v", out, err)
				}
				return
			}
			var callErr *ErrCallingWebhook
			if !errors.As(err, &callErr) || callErr.Status != nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("got %v, want ErrCallingWebhook containing %q", err, tc.wantErr)
			}
		})
	}
}

// hang blocks every request until the client gives up or the test ends,
// after telling the test it arrived.
func hang(t *testing.T, arrived chan<- struct{}) *httptest.Server {
	release := make(chan struct{})
	srv := newTLSServer(t, http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		// Reading the body lets the server notice the client going away.
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case arrived <- struct{}{}:
		default:
		}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(func() { close(release) })
	return srv
}

func TestPostTimeouts(t *testing.T) {
	t.Run("context cancelled", func(t *testing.T) {
		arrived := make(chan struct{}, 1)
		srv := hang(t, arrived)
		c, err := NewClientManager(nil, time.Hour).Client(ClientConfig{Name: "w", URL: srv.URL, CABundle: serverCAPEM(srv)})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-arrived; cancel() }()
		err = c.Post(ctx, echoMsg{}, &echoMsg{})
		var callErr *ErrCallingWebhook
		if !errors.As(err, &callErr) || !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v, want ErrCallingWebhook wrapping context.Canceled", err)
		}
	})
	t.Run("manager timeout", func(t *testing.T) {
		srv := hang(t, nil)
		c, err := NewClientManager(nil, time.Millisecond).Client(ClientConfig{Name: "w", URL: srv.URL, CABundle: serverCAPEM(srv)})
		if err != nil {
			t.Fatal(err)
		}
		err = c.Post(context.Background(), echoMsg{}, &echoMsg{})
		var netErr net.Error
		var callErr *ErrCallingWebhook
		if !errors.As(err, &callErr) || !errors.As(err, &netErr) || !netErr.Timeout() {
			t.Fatalf("got %v, want ErrCallingWebhook wrapping a timeout", err)
		}
	})
}

func TestClientCache(t *testing.T) {
	m := NewClientManager(nil, 0)
	base := ClientConfig{Name: "w", URL: "https://127.0.0.1/a"}
	first, err := m.Client(base)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		cfg  ClientConfig
		same bool
	}{
		{name: "same config", cfg: base, same: true},
		{name: "other name", cfg: ClientConfig{Name: "v", URL: base.URL}},
		{name: "other URL", cfg: ClientConfig{Name: "w", URL: "https://127.0.0.1/b"}},
		{name: "other CA", cfg: ClientConfig{Name: "w", URL: base.URL, CABundle: newTestCA(t).pem}},
		{name: "service", cfg: ClientConfig{Name: "w", Service: &ServiceReference{Namespace: "a", Name: "b"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := m.Client(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if (got == first) != tc.same {
				t.Errorf("same client = %v, want %v", got == first, tc.same)
			}
			again, _ := m.Client(tc.cfg)
			if again != got {
				t.Errorf("second lookup built a new client")
			}
		})
	}
}

// TestTransportWrapper: the clients of WithTransportWrapper, and of
// WithAuthInfo after it, send through the wrapper; the original
// manager's do not.
func TestTransportWrapper(t *testing.T) {
	srv := newTLSServer(t, http.HandlerFunc(echo))
	var through int
	wrap := func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
			through++
			return rt.RoundTrip(r)
		})
	}
	plain := NewClientManager(nil, 0)
	if plain.WithTransportWrapper(nil) != plain {
		t.Error("WithTransportWrapper(nil) made a new manager")
	}
	wrapped := plain.WithTransportWrapper(wrap)
	for _, tc := range []struct {
		name string
		m    *ClientManager
		want int
	}{
		{"plain", plain, 0},
		{"wrapped", wrapped, 1},
		{"wrapped, then with a token", wrapped.WithAuthInfo(&AuthInfoResolver{config: &clientcmdapi.Config{
			AuthInfos: map[string]*clientcmdapi.AuthInfo{"*": {Token: "t"}},
		}}), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			through = 0
			c, err := tc.m.Client(ClientConfig{Name: "w", URL: srv.URL, CABundle: serverCAPEM(srv)})
			if err != nil {
				t.Fatal(err)
			}
			var out echoMsg
			if err := c.Post(context.Background(), echoMsg{Value: "v"}, &out); err != nil || out.Value != "v" {
				t.Fatalf("Post = %+v, %v", out, err)
			}
			if through != tc.want {
				t.Errorf("%d requests through the wrapper, want %d", through, tc.want)
			}
		})
	}
}

// roundTripperFunc is a RoundTripper made of a function.
type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestDefaultServiceResolver(t *testing.T) {
	tests := []struct {
		ns, name string
		port     int32
		want     string
	}{
		{ns: "andromeda", name: "ross", port: 443, want: "https://ross.andromeda.svc:443"},
		{ns: "ns", name: "hook", port: 8443, want: "https://hook.ns.svc:8443"},
		{ns: "", name: "hook", port: 443},
		{ns: "ns", name: "", port: 443},
		{ns: "ns", name: "hook", port: 0},
	}
	for _, tc := range tests {
		u, err := DefaultServiceResolver().ResolveEndpoint(tc.ns, tc.name, tc.port)
		if tc.want == "" {
			if err == nil {
				t.Errorf("%s/%s:%d: got %v, want an error", tc.ns, tc.name, tc.port, u)
			}
			continue
		}
		if err != nil || u.String() != tc.want {
			t.Errorf("%s/%s:%d: got %v, %v, want %s", tc.ns, tc.name, tc.port, u, err, tc.want)
		}
	}
}

func TestHostPort(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://10.0.0.1:8443", "10.0.0.1:8443"},
		{"https://10.0.0.1", "10.0.0.1:443"},
		{"http://10.0.0.1", "10.0.0.1:80"},
		{"https://[::1]", "[::1]:443"},
	}
	for _, tc := range tests {
		u, _ := url.Parse(tc.in)
		if got := hostPort(u); got != tc.want {
			t.Errorf("hostPort(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
