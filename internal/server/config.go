package server

import (
	"crypto/tls"
	"crypto/x509"
	"log/slog"
	"net"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/trace"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"

	"github.com/kapi-dev/kapi/internal/audit"
	"github.com/kapi-dev/kapi/internal/auth/authenticator"
	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/endpoints/metrics"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/server/filters"
	"github.com/kapi-dev/kapi/internal/server/flowcontrol"
)

// Upstream's defaults.
const (
	DefaultMaxRequestsInFlight         = 400
	DefaultMaxMutatingRequestsInFlight = 200
	DefaultRequestTimeout              = 60 * time.Second
	DefaultShutdownTimeout             = 60 * time.Second
)

// Config is everything a GenericServer needs. Fields left zero by NewConfig's
// caller keep their documented meaning; New fills in nil functions.
type Config struct {
	// Logger receives the server's logs; nil discards.
	Logger *slog.Logger

	// Authentication identifies users; nil disables authentication (every
	// request reaches authorization without a user), as upstream.
	Authentication authenticator.Request
	// Authorization decides; nil disables authorization, as upstream.
	Authorization authorizer.Authorizer
	// AuditChecker says what to record of each request, AuditBackend
	// receives the events; both nil records nothing.
	AuditChecker audit.Checker
	AuditBackend audit.Backend
	// Metrics records requests in kube-apiserver's request metrics; nil
	// records nothing.
	Metrics *metrics.Metrics
	// TracerProvider, when set, traces requests (--tracing-config-file):
	// filters.WithTracing starts each request's server span from it, and
	// everything below starts its spans from that one. nil traces nothing
	// and installs no filter. Whoever built it shuts it down.
	TracerProvider trace.TracerProvider

	// RequestInfoResolver parses requests; nil means the standard prefixes.
	RequestInfoResolver *request.RequestInfoFactory
	// LongRunningFunc tells which requests are exempt from the timeout, the
	// in-flight limit and draining; nil means
	// request.DefaultLongRunningRequestCheck.
	LongRunningFunc request.LongRunningRequestCheck

	// MaxRequestsInFlight and MaxMutatingRequestsInFlight cap read-only and
	// mutating requests served at once; 0 is unlimited.
	MaxRequestsInFlight         int
	MaxMutatingRequestsInFlight int
	// RequestTimeout bounds non-long-running requests; 0 is unlimited.
	RequestTimeout time.Duration
	// HSTSDirectives, when set, are sent as Strict-Transport-Security.
	HSTSDirectives []string

	// ShutdownDelayDuration is how long the server keeps serving, with
	// /readyz failing, after shutdown begins, so load balancers can notice.
	ShutdownDelayDuration time.Duration
	// ShutdownTimeout bounds the wait for in-flight requests to finish.
	ShutdownTimeout time.Duration

	// Version is served at /version when set.
	Version *version.Info

	// BuildHandlerChainFunc wraps the Director in filters; nil means
	// DefaultBuildHandlerChain.
	BuildHandlerChainFunc func(apiHandler http.Handler, c *Config) http.Handler

	// LoopbackClientConfig is handed to post-start hooks.
	LoopbackClientConfig *rest.Config

	// SecureServing is where Run serves; required by Run only.
	SecureServing *SecureServingInfo

	// Clock times the shutdown phases; nil means the real clock.
	Clock clock.Clock

	// NonLongRunningRequestWaitGroup counts requests for draining. New sets
	// a fresh one on its own copy of the Config for each server, so leave it
	// nil; it is exported for BuildHandlerChainFuncs that assemble their own
	// chain.
	NonLongRunningRequestWaitGroup *filters.RequestWaitGroup

	// FlowControl, when set, is API Priority and Fairness: it replaces
	// the max-in-flight limits (MaxRequestsInFlight and
	// MaxMutatingRequestsInFlight then only size it, through the
	// dispatcher's server concurrency limit).
	FlowControl *flowcontrol.Dispatcher
	// Lifecycle, as kube-apiserver's flags of the same names (zero values
	// are upstream's defaults; see lifecycle_options.go).
	//
	// ShutdownSendRetryAfter keeps the listener open after the shutdown
	// delay until the non-long-running requests drained, answering new
	// requests 429 with Retry-After (--shutdown-send-retry-after).
	ShutdownSendRetryAfter bool
	// ShutdownWatchTerminationGracePeriod, when positive, spreads the
	// ending of watches over it and waits at most that long for them
	// (--shutdown-watch-termination-grace-period).
	ShutdownWatchTerminationGracePeriod time.Duration
	// GoawayChance is the fraction of HTTP/2 requests answered with a
	// GOAWAY (--goaway-chance, 0 to 0.02).
	GoawayChance float64
	// CorsAllowedOriginList are the regular expressions of the origins
	// allowed cross-origin requests (--cors-allowed-origins).
	CorsAllowedOriginList []string
	// LivezGracePeriod is how long after a post-start hook is added its
	// /livez check passes even while the hook has not finished
	// (--livez-grace-period).
	LivezGracePeriod time.Duration
	// Profiling and debugging (apfconfig helper): EnableProfiling serves
	// /debug/pprof/ and /debug/flags/v (--profiling, default true);
	// EnableContentionProfiling adds the block profile
	// (--contention-profiling); Verbosity is the -v level the request log
	// reads and /debug/flags/v changes.
	EnableProfiling           bool
	EnableContentionProfiling bool
	Verbosity                 *Verbosity
}

// SecureServingInfo is the TLS listener of a server.
type SecureServingInfo struct {
	// Listener is bound by the caller (":0" in tests), so the port is known
	// before Run.
	Listener net.Listener
	// Cert is the serving certificate. GetCertificate, when set, is used
	// instead (SNI, reloading).
	Cert           *tls.Certificate
	GetCertificate func(*tls.ClientHelloInfo) (*tls.Certificate, error)
	// ClientCAHints, when set, returns the CAs whose client certificates
	// the server asks for: the TLS layer requests a certificate, names these
	// CAs to the client as acceptable issuers, and verifies nothing, as
	// upstream; the client-certificate and request-header authenticators
	// verify against their own CAs. A client without a certificate, or with
	// one from another CA, still completes the handshake. It is called on
	// every handshake, so a reloaded bundle is seen at once (see
	// dynamiccertificates.UnionPool).
	ClientCAHints func() *x509.CertPool
	// ClientCA is a fixed ClientCAHints, used when ClientCAHints is nil.
	ClientCA *x509.CertPool
	// MinTLSVersion defaults to TLS 1.2; CipherSuites to Go's choice.
	MinTLSVersion uint16
	CipherSuites  []uint16
}

// NewConfig returns a Config with upstream's defaults and no
// authentication, authorization or serving.
func NewConfig() *Config {
	return &Config{
		RequestInfoResolver:         request.NewRequestInfoFactory(),
		LongRunningFunc:             request.DefaultLongRunningRequestCheck(),
		MaxRequestsInFlight:         DefaultMaxRequestsInFlight,
		MaxMutatingRequestsInFlight: DefaultMaxMutatingRequestsInFlight,
		RequestTimeout:              DefaultRequestTimeout,
		ShutdownTimeout:             DefaultShutdownTimeout,
		BuildHandlerChainFunc:       DefaultBuildHandlerChain,
		Clock:                       clock.RealClock{},
		EnableProfiling:             true,
		Verbosity:                   NewVerbosity(0),
	}
}

// complete returns a copy of c with nil functions defaulted and a fresh wait
// group, so servers built from one Config share no state.
func (c *Config) complete() *Config {
	cc := *c
	if cc.Logger == nil {
		cc.Logger = slog.New(slog.DiscardHandler)
	}
	if cc.RequestInfoResolver == nil {
		cc.RequestInfoResolver = request.NewRequestInfoFactory()
	}
	if cc.LongRunningFunc == nil {
		cc.LongRunningFunc = request.DefaultLongRunningRequestCheck()
	}
	if cc.BuildHandlerChainFunc == nil {
		cc.BuildHandlerChainFunc = DefaultBuildHandlerChain
	}
	if cc.Clock == nil {
		cc.Clock = clock.RealClock{}
	}
	if cc.Verbosity == nil {
		cc.Verbosity = NewVerbosity(0)
	}
	cc.NonLongRunningRequestWaitGroup = filters.NewRequestWaitGroup()
	if cc.FlowControl != nil {
		cc.MaxRequestsInFlight, cc.MaxMutatingRequestsInFlight = 0, 0
	}
	return &cc
}
