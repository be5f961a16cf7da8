package controlplane

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

// proxyFront serves a remote APIService's proxy to backend, as the
// aggregator does after authenticating the user alice.
func proxyFront(t testing.TB, backend http.Handler) *httptest.Server {
	t.Helper()
	be := httptest.NewTLSServer(backend)
	t.Cleanup(be.Close)
	u, err := url.Parse(be.URL)
	if err != nil {
		t.Fatal(err)
	}
	s := &apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: "v1.example.com"},
		Spec: apiregistrationv1.APIServiceSpec{
			Group: "example.com", Version: "v1", InsecureSkipTLSVerify: true,
			Service: &apiregistrationv1.ServiceReference{Namespace: "ns", Name: "svc", Port: ptr.To[int32](443)},
		},
		Status: apiregistrationv1.APIServiceStatus{Conditions: []apiregistrationv1.APIServiceCondition{{Type: apiregistrationv1.Available, Status: apiregistrationv1.ConditionTrue}}},
	}
	p, err := newRemoteProxy(s, fixedResolver{url: u}, nil, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.close)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.ServeHTTP(w, r.WithContext(request.WithUser(r.Context(), &user.DefaultInfo{Name: "alice", UID: "a-1"})))
	}))
	t.Cleanup(front.Close)
	return front
}

// TestProxyForwardsRequestAndResponse pins what passes through the proxy
// untouched: method, path, query string and body of the request; status,
// Content-Type, Content-Encoding and the bytes of the response.
func TestProxyForwardsRequestAndResponse(t *testing.T) {
	gz := []byte{0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff}
	var gotMethod, gotURI, gotType, gotUID string
	var gotBody []byte
	front := proxyFront(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotMethod, gotURI, gotType, gotUID = r.Method, r.URL.RequestURI(), r.Header.Get("Content-Type"), r.Header.Get("X-Remote-Uid")
		gotBody, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/vnd.kubernetes.protobuf")
		w.Header().Set("Content-Encoding", "gzip")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(gz)
	}))
	const uri = "/apis/example.com/v1/namespaces/default/widgets?dryRun=All&fieldManager=me"
	req, err := http.NewRequest(http.MethodPost, front.URL+uri, bytes.NewReader([]byte(`{"kind":"Widget"}`)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if gotMethod != http.MethodPost || gotURI != uri || gotType != "application/json" || string(gotBody) != `{"kind":"Widget"}` {
		t.Errorf("backend saw %s %s (%s) %q", gotMethod, gotURI, gotType, gotBody)
	}
	if gotUID != "a-1" {
		t.Errorf("X-Remote-Uid = %q, want a-1", gotUID)
	}
	if resp.StatusCode != http.StatusCreated || resp.Header.Get("Content-Type") != "application/vnd.kubernetes.protobuf" ||
		resp.Header.Get("Content-Encoding") != "gzip" || !bytes.Equal(body, gz) {
		t.Errorf("client got %d %v %x", resp.StatusCode, resp.Header, body)
	}
}

// TestProxyStreamsWatch: each event the backend flushes reaches the
// client while the watch is still open.
func TestProxyStreamsWatch(t *testing.T) {
	release := make(chan struct{})
	front := proxyFront(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"type":"ADDED","object":{"kind":"Widget"}}`+"\n")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer close(release)
	resp, err := http.Get(front.URL + "/apis/example.com/v1/widgets?watch=true")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || line != `{"type":"ADDED","object":{"kind":"Widget"}}`+"\n" {
		t.Errorf("first event %q (%v), want it before the watch ends", line, err)
	}
}

// TestProxyPassesUpgrade: an upgrade (SPDY, as kubectl exec) switches
// protocols end to end and bytes flow both ways.
func TestProxyPassesUpgrade(t *testing.T) {
	front := proxyFront(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Upgrade") != "SPDY/3.1" || r.Header.Get("X-Remote-User") != "alice" {
			http.Error(w, "want an upgrade from alice", http.StatusBadRequest)
			return
		}
		conn, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		_, _ = rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n")
		_ = rw.Flush()
		line, _ := rw.ReadString('\n')
		_, _ = rw.WriteString("echo " + line)
		_ = rw.Flush()
	}))
	conn, err := net.Dial("tcp", front.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "POST /apis/example.com/v1/namespaces/default/widgets/w/exec?command=sh HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("status %d, want 101", resp.StatusCode)
	}
	if _, err := io.WriteString(conn, "ping\n"); err != nil {
		t.Fatal(err)
	}
	if line, err := br.ReadString('\n'); err != nil || line != "echo ping\n" {
		t.Errorf("upgraded stream answered %q (%v)", line, err)
	}
}

// TestProxyCancelsWithClient: when the client's request ends (its
// timeout or a disconnect), the request to the backend is cancelled.
func TestProxyCancelsWithClient(t *testing.T) {
	arrived, cancelled := make(chan struct{}), make(chan struct{})
	front := proxyFront(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-r.Context().Done()
		close(cancelled)
	}))
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, front.URL+"/apis/example.com/v1/widgets", nil)
	errc := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	<-arrived
	cancel()
	<-cancelled // the test times out if the backend never sees it
	if err := <-errc; err == nil {
		t.Error("cancelled request succeeded")
	}
}
