package server

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kapi-dev/kapi/internal/endpoints/metrics"
)

func TestTLSHandshakeErrorsAreCounted(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	h := serverErrorHandler{slog.DiscardHandler, m}
	for _, msg := range []string{
		"http: TLS handshake error from 127.0.0.1:5555: EOF",
		"http: TLS handshake error from 127.0.0.1:5556: remote error: tls: bad certificate",
		"http: panic serving 127.0.0.1:5557: boom",
	} {
		if err := h.Handle(context.Background(), slog.NewRecord(time.Now(), slog.LevelWarn, msg, 0)); err != nil {
			t.Fatal(err)
		}
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == "apiserver_tls_handshake_errors_total" {
			if got := f.GetMetric()[0].GetCounter().GetValue(); got != 2 {
				t.Errorf("apiserver_tls_handshake_errors_total = %v, want 2", got)
			}
			return
		}
	}
	t.Error("apiserver_tls_handshake_errors_total is missing")
}
