package controlplane

import (
	"time"

	"github.com/kapi-dev/kapi/internal/server"
)

// LifecycleConfig is kube-apiserver's lifecycle flags; the zero value is
// upstream's defaults.
type LifecycleConfig struct {
	// ShutdownSendRetryAfter is --shutdown-send-retry-after.
	ShutdownSendRetryAfter bool
	// ShutdownWatchTerminationGracePeriod is
	// --shutdown-watch-termination-grace-period.
	ShutdownWatchTerminationGracePeriod time.Duration
	// GoawayChance is --goaway-chance.
	GoawayChance float64
	// CorsAllowedOriginList is --cors-allowed-origins.
	CorsAllowedOriginList []string
	// LivezGracePeriod is --livez-grace-period.
	LivezGracePeriod time.Duration
	// ShutdownTimeout bounds the drain of in-flight requests; zero keeps
	// the generic server's 60s. Not a kube-apiserver flag (upstream
	// derives it from --request-timeout); tests shorten it.
	ShutdownTimeout time.Duration
}

// apply puts the lifecycle settings into the generic server's config.
func (l LifecycleConfig) apply(sc *server.Config) {
	sc.ShutdownSendRetryAfter = l.ShutdownSendRetryAfter
	sc.ShutdownWatchTerminationGracePeriod = l.ShutdownWatchTerminationGracePeriod
	sc.GoawayChance = l.GoawayChance
	sc.CorsAllowedOriginList = l.CorsAllowedOriginList
	sc.LivezGracePeriod = l.LivezGracePeriod
	if l.ShutdownTimeout > 0 {
		sc.ShutdownTimeout = l.ShutdownTimeout
	}
}
