package controlplane

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/internal/apis/install"
	"github.com/kapi-dev/kapi/internal/auth/authenticator/loopback"
	"github.com/kapi-dev/kapi/internal/endpoints/inprocess"
	apimetrics "github.com/kapi-dev/kapi/internal/endpoints/metrics"
	"github.com/kapi-dev/kapi/internal/kubeconfig"
	"github.com/kapi-dev/kapi/internal/server"
	"github.com/kapi-dev/kapi/internal/server/clientmetrics"
	"github.com/kapi-dev/kapi/internal/storage/metrics"
	"github.com/kapi-dev/kapi/internal/version"
)

// Run builds the control plane from c and serves until ctx is done, then
// shuts down gracefully and closes storage.
func Run(ctx context.Context, c *Config) error {
	c.defaultServices()
	logger := c.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	out := c.Out
	if out == nil {
		out = io.Discard
	}
	if err := os.MkdirAll(c.DataDir, 0o700); err != nil {
		return fmt.Errorf("--data-dir: %w", err)
	}
	// Deferred first, so shut down last: the spans of the requests
	// drained at shutdown are sent too.
	tracerProvider, stopTracing, err := newTracerProvider(ctx, c, logger)
	if err != nil {
		return err
	}
	defer stopTracing()

	// Storage and certificates do not depend on each other; the embedded
	// etcd start dominates the cold start, so overlap them.
	registry := newMetricsRegistry()
	storageMetrics, err := metrics.New(registry)
	if err != nil {
		return fmt.Errorf("registering storage metrics: %w", err)
	}
	type backendResult struct {
		h     *storageHandle
		err   error
		taken time.Duration
	}
	backendCh := make(chan backendResult, 1)
	storageStart := time.Now()
	go func() {
		h, err := openBackend(ctx, c, storageMetrics, logger)
		backendCh <- backendResult{h, err, time.Since(storageStart)}
	}()
	signingKey := loadSigningKey(c)
	// Run never returns with the key still being made.
	defer func() { _, _ = signingKey() }()
	serving, err := servingMaterial(c)
	br := <-backendCh
	if br.err != nil {
		return errors.Join(br.err, err)
	}
	defer func() {
		if err := br.h.close(); err != nil {
			logger.Error("closing storage", "err", err)
		}
	}()
	if err != nil {
		return err
	}
	logger.Debug("storage opened", "backend", c.StorageBackend, "took", br.taken)

	scheme := runtime.NewScheme()
	if err := install.InstallAll(scheme); err != nil {
		return fmt.Errorf("building the scheme: %w", err)
	}
	getter := &restOptionsGetter{backend: br.h.backend, scheme: scheme, codecs: serializer.NewCodecFactory(scheme)}

	listener, err := net.Listen("tcp", net.JoinHostPort(c.BindAddress.String(), strconv.Itoa(c.SecurePort)))
	if err != nil {
		return fmt.Errorf("--secure-port %d on --bind-address %s: %w", c.SecurePort, c.BindAddress, err)
	}
	// Port 0 (tests, benchmarks) picks a free port; clients need the real one.
	port := listener.Addr().(*net.TCPAddr).Port
	// The kubernetes service points at the port actually served.
	c.SecurePort = port
	url := "https://" + net.JoinHostPort(loopbackHost(c.BindAddress), strconv.Itoa(port))

	tlsServing, err := newTLSServing(c, listener, &serving.loopback, logger)
	if err != nil {
		listener.Close()
		return err
	}
	loopbackAuth := loopback.New()
	authn, err := securityAuthentication(ctx, c, tlsServing, signingKey, loopbackAuth, logger)
	if err != nil {
		listener.Close()
		return err
	}
	tlsServing.start(ctx)

	sc := server.NewConfig()
	sc.Logger = logger
	sc.TracerProvider = tracerProvider
	sc.Authentication = authn.request
	sc.LoopbackClientConfig = serving.loopbackConfig(url, loopbackAuth.Token())
	sc.Metrics, err = apimetrics.New(registry)
	if err != nil {
		listener.Close()
		return fmt.Errorf("registering request metrics: %w", err)
	}
	// The server's own clients, built from copies of the loopback
	// config, report in its rest_client_* families.
	clientMetrics, err := clientmetrics.New(registry)
	if err != nil {
		listener.Close()
		return fmt.Errorf("registering loopback client metrics: %w", err)
	}
	clientMetrics.Instrument(sc.LoopbackClientConfig)
	// The server's own informers read its storage in-process; the API
	// installer binds each resource as it installs it. Not under an audit
	// policy: kube-apiserver's own reads go through its handler chain and
	// are audited, so then they go over loopback too (as the seed leaves
	// its writes to the hooks then).
	var local *inprocess.Resources
	if c.Security.AuditPolicyFile == "" {
		local = inprocess.NewResources(scheme)
	}
	authz, err := newAuthorization(c, sc.LoopbackClientConfig, sc.Metrics, local)
	if err != nil {
		listener.Close()
		return err
	}
	sc.Authorization = authz.authorizer
	// The bootstrap seed writes into storage: it ends before storage closes.
	defer authz.awaitSeed()
	// The audit backends outlive the server: events of draining requests
	// are flushed after Run returns.
	auditCtx, stopAudit := context.WithCancel(context.Background())
	defer stopAudit()
	sc.AuditChecker, sc.AuditBackend, err = newAudit(auditCtx, c)
	if err != nil {
		listener.Close()
		return err
	}
	if sc.AuditBackend != nil {
		defer sc.AuditBackend.Shutdown()
	}
	sc.MaxRequestsInFlight = c.MaxRequestsInFlight
	sc.MaxMutatingRequestsInFlight = c.MaxMutatingRequestsInFlight
	if sc.FlowControl, err = newFlowControl(c, registry, storageMetrics); err != nil {
		listener.Close()
		return err
	}
	sc.RequestTimeout = c.RequestTimeout
	sc.ShutdownDelayDuration = c.ShutdownDelayDuration
	c.Lifecycle.apply(sc)
	sc.AuditBackend = sc.Metrics.AuditBackend(sc.AuditBackend)
	sc.EnableProfiling = !c.DisableProfiling
	sc.EnableContentionProfiling = c.ContentionProfiling
	if c.Verbosity != nil {
		sc.Verbosity = c.Verbosity
	}
	v := version.Get()
	sc.Version = &v
	sc.SecureServing = tlsServing.info

	clientCA, err := serving.clientCAPEM(c)
	if err != nil {
		listener.Close()
		return err
	}
	var afterReady []func()
	top, err := serverChain(c, sc, chainDeps{
		scheme: scheme, getter: getter, logger: logger,
		storage: br.h, metrics: storageMetrics, registry: registry, authn: authn, authz: authz, local: local,
		rootCA: serving.rootCA(c), clientCA: clientCA, ctx: ctx,
		afterReady: func(fn func()) { afterReady = append(afterReady, fn) },
	})
	if err != nil {
		listener.Close()
		return err
	}
	kubeconfigPath := filepath.Join(c.DataDir, "admin.kubeconfig")
	if err := kubeconfig.WriteAdmin(kubeconfigPath, url, serving.caPEM, serving.adminCertPEM, serving.adminKeyPEM, !c.DataDirIsTemporary); err != nil {
		listener.Close()
		return fmt.Errorf("writing the admin kubeconfig: %w", err)
	}
	fmt.Fprintf(out, "Admin kubeconfig: %s\n", kubeconfigPath)

	// The embedded etcd elects itself while the server is built.
	if err := br.h.awaitReady(ctx); err != nil {
		listener.Close()
		return err
	}
	logger.Info("storage ready", "backend", c.StorageBackend, "took", time.Since(storageStart))
	// Nothing may watch while the bootstrap data is seeded (see seed.go).
	authz.awaitSeed()
	logger.Debug("bootstrap seed finished", "sinceStorageStart", time.Since(storageStart))
	if br.h.awaitCaches != nil {
		br.h.awaitCaches(ctx)
		logger.Debug("watch caches filled", "sinceStorageStart", time.Since(storageStart))
	}
	prepared := top.PrepareRun()
	runErr := make(chan error, 1)
	go func() { runErr <- prepared.Run(ctx) }()
	go func() {
		select {
		case <-prepared.ReadyCh():
			for _, fn := range afterReady {
				fn()
			}
		case <-ctx.Done():
		}
	}()
	if c.Out != nil {
		go announceReady(ctx, out, logger, sc.LoopbackClientConfig, url, c.StartTime)
	}
	if c.Ready != nil {
		go func() {
			select {
			case <-prepared.ReadyCh():
				// The caller's clients are not the server's own: they
				// get the administrator's identity.
				c.Ready(serving.adminConfig(url))
			case <-ctx.Done():
			}
		}()
	}
	return <-runErr
}

// announceReady prints the ready line once /readyz answers 200 through the
// real listener, which is what a client will see.
func announceReady(ctx context.Context, out io.Writer, logger *slog.Logger, cfg *rest.Config, url string, start time.Time) {
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		logger.Error("readiness probe", "err", err)
		return
	}
	for ctx.Err() == nil {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/readyz", nil)
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				took := time.Since(start)
				if start.IsZero() {
					took = 0
				}
				fmt.Fprintf(out, "kapi is ready at %s (took %s)\n", url, took.Round(time.Millisecond))
				return
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// loopbackHost is the address clients on this machine use.
func loopbackHost(bind net.IP) string {
	if bind == nil || bind.IsUnspecified() {
		return "127.0.0.1"
	}
	return bind.String()
}
