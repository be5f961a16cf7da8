package server

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"k8s.io/client-go/rest"
)

// warmTimeout bounds warmLoopback: past it the hooks start anyway.
const warmTimeout = 5 * time.Second

// warmLoopback opens the loopback client's connection before the
// post-start hooks run. The hooks start together, and every client built
// from the loopback config shares one cached transport; on a transport
// with no connection yet each first request dials and completes a TLS
// handshake of its own, and HTTP/2 then keeps one connection and closes
// the others. One request first makes them all share the open connection:
// that was ~30 handshakes per start, a good part of a test server's start.
func warmLoopback(ctx context.Context, cfg *rest.Config, logger *slog.Logger) {
	if cfg == nil {
		return
	}
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		logger.Debug("loopback client", "err", err)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, warmTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(cfg.Host, "/")+"/version", nil)
	if err != nil {
		logger.Debug("loopback client", "err", err)
		return
	}
	resp, err := client.Do(req)
	if err != nil {
		logger.Debug("loopback client", "err", err)
		return
	}
	resp.Body.Close()
}
