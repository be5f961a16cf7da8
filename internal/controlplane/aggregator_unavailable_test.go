package controlplane

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

// fixedResolver resolves every Service to url, or fails with err.
type fixedResolver struct {
	url *url.URL
	err error
}

func (f fixedResolver) ResolveEndpoint(string, string, int32) (*url.URL, error) { return f.url, f.err }

// closedURL is an https URL nobody listens on.
func closedURL(t *testing.T) *url.URL {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return &url.URL{Scheme: "https", Host: addr}
}

// TestAggregatorUnavailableAPIServiceResponses pins the 503s of a remote
// APIService that cannot serve, as upstream's aggregator writes them
// (kube-aggregator pkg/apiserver/handler_proxy.go): plain text, not a
// Status, "service unavailable" when the APIService is not Available or
// its Service does not resolve, the bare transport error when the
// endpoint does not answer. client-go reads each as a ServiceUnavailable
// error, which kubectl prints as "the server is currently unable to
// handle the request".
func TestAggregatorUnavailableAPIServiceResponses(t *testing.T) {
	tests := []struct {
		name      string
		available bool
		resolver  fixedResolver
		wantBody  string // exact; empty means check wantIn
		wantIn    string
	}{
		{name: "not Available", available: false, resolver: fixedResolver{url: closedURL(t)}, wantBody: "service unavailable\n"},
		{name: "service does not resolve", available: true, resolver: fixedResolver{err: errors.New("no endpoints")}, wantBody: "service unavailable\n"},
		{name: "endpoint does not answer", available: true, resolver: fixedResolver{url: closedURL(t)}, wantIn: "connect: connection refused"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			svc := &apiregistrationv1.APIService{
				ObjectMeta: metav1.ObjectMeta{Name: "v1.example.com"},
				Spec: apiregistrationv1.APIServiceSpec{
					Group: "example.com", Version: "v1", InsecureSkipTLSVerify: true,
					Service: &apiregistrationv1.ServiceReference{Namespace: "ns", Name: "svc", Port: ptr.To[int32](443)},
				},
			}
			if tc.available {
				svc.Status.Conditions = []apiregistrationv1.APIServiceCondition{{Type: apiregistrationv1.Available, Status: apiregistrationv1.ConditionTrue}}
			}
			p, err := newRemoteProxy(svc, tc.resolver, nil, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			defer p.close()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				p.ServeHTTP(w, r.WithContext(request.WithUser(r.Context(), &user.DefaultInfo{Name: "alice"})))
			}))
			defer srv.Close()

			resp, err := http.Get(srv.URL + "/apis/example.com/v1/widgets")
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != http.StatusServiceUnavailable {
				t.Errorf("status = %d, want 503", resp.StatusCode)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
				t.Errorf("Content-Type = %q, want upstream's text/plain", ct)
			}
			if tc.wantBody != "" && string(body) != tc.wantBody {
				t.Errorf("body = %q, want %q", body, tc.wantBody)
			}
			if tc.wantIn != "" && (!strings.Contains(string(body), tc.wantIn) || strings.HasPrefix(string(body), "Error")) {
				t.Errorf("body = %q, want the bare transport error (%q)", body, tc.wantIn)
			}

			cs := kubernetes.NewForConfigOrDie(&rest.Config{Host: srv.URL})
			_, err = cs.CoreV1().RESTClient().Get().AbsPath("/apis/example.com/v1/widgets").DoRaw(t.Context())
			if !apierrors.IsServiceUnavailable(err) {
				t.Errorf("client-go error = %v, want ServiceUnavailable", err)
			}
		})
	}
}
