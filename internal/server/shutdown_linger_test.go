package server

import (
	"io"
	"log/slog"
	"net/http"
	"testing"

	"golang.org/x/net/http2"
)

// TestShutdownClosesIdleHTTP2Connections: once every handler returned,
// shutdown closes the idle HTTP/2 connections itself instead of waiting
// for Go's HTTP/2 server to let them linger after its GOAWAY, and a
// request in flight still gets its whole response first.
func TestShutdownClosesIdleHTTP2Connections(t *testing.T) {
	logs := newLogWatcher()
	c := NewConfig()
	c.Logger = slog.New(logs)
	entered, release := make(chan struct{}), make(chan struct{})
	ts := startServer(t, c, func(c *Config) *GenericServer {
		s := mustNew(t, c, "only", NewNotFoundDelegate())
		s.Handler.NonAPIMux.Handle("/hold", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			close(entered)
			<-release
			io.WriteString(w, "done")
		}))
		return s
	})
	<-ts.prepared.ReadyCh()

	// An idle HTTP/2 connection, kept open by the pool of a transport
	// configured as client-go configures its own: golang.org/x/net/http2,
	// which does not close an idle connection on GOAWAY.
	transport := &http.Transport{TLSClientConfig: ts.client.Transport.(*http.Transport).TLSClientConfig.Clone()}
	if err := http2.ConfigureTransport(transport); err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Transport: transport}).Get(ts.url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.ProtoMajor != 2 {
		t.Fatalf("protocol %s, want HTTP/2", resp.Proto)
	}

	held := make(chan string, 1)
	go func() {
		code, body, _ := ts.get("/hold", "")
		held <- http.StatusText(code) + " " + body
	}()
	<-entered
	stopped := make(chan error, 1)
	go func() { stopped <- ts.stop() }()
	<-ts.prepared.signals.notAcceptingNewRequests.done()
	close(release)
	if got := <-held; got != "OK done" {
		t.Errorf("request in flight during shutdown got %q, want OK done", got)
	}
	if err := <-stopped; err != nil {
		t.Errorf("Run: %v", err)
	}
	select {
	case <-logs.seenCh("graceful termination: closing idle connections"):
	default:
		t.Error("Run returned without closing the idle connections itself")
	}
}
