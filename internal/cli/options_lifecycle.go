package cli

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/kapi-dev/kapi/internal/controlplane"
)

// lifecycleOptions are kube-apiserver's flags of graceful shutdown,
// connection rebalancing, CORS and liveness, with its names and defaults
// (all off or zero).
type lifecycleOptions struct {
	ShutdownSendRetryAfter              bool
	ShutdownWatchTerminationGracePeriod time.Duration
	GoawayChance                        float64
	CorsAllowedOriginList               []string
	LivezGracePeriod                    time.Duration
}

// corsAllowedOriginsHelp says what upstream's help says of the patterns.
const corsAllowedOriginsHelp = "List of allowed origins for CORS, comma separated. An allowed origin can be a regular expression to support subdomain matching. If this list is empty CORS will not be enabled. Each expression must match the entire hostname: anchor it at the start with '^' or include the '//' prefix, and at the end with '$' or include the ':' port separator. Examples: '//example\\.com(:|$)' and '^https://example\\.com(:|$)'"

func (o *lifecycleOptions) addFlags(sets *namedFlagSets) {
	fs := sets.FlagSet("generic")
	fs.StringSliceVar(&o.CorsAllowedOriginList, "cors-allowed-origins", o.CorsAllowedOriginList, corsAllowedOriginsHelp)
	fs.Float64Var(&o.GoawayChance, "goaway-chance", o.GoawayChance, "To prevent HTTP/2 clients from getting stuck on a single apiserver, randomly close a connection (GOAWAY). The client's other in-flight requests are not affected; it reconnects, likely landing on another apiserver behind the load balancer. This is the fraction of requests sent a GOAWAY: min 0 (off), max .02 (1/50 requests); .001 is a recommended start. Single apiservers, or clusters without a load balancer, should not enable it.")
	fs.DurationVar(&o.LivezGracePeriod, "livez-grace-period", o.LivezGracePeriod, "The maximum time the apiserver's start-up sequence should take: until this much time has passed since start, /livez assumes that unfinished post-start hooks will complete successfully.")
	fs.BoolVar(&o.ShutdownSendRetryAfter, "shutdown-send-retry-after", o.ShutdownSendRetryAfter, "If true the HTTP server keeps listening until all non-long-running requests in flight have drained; during that window every new request is rejected with 429 and a 'Retry-After' header, and 'Connection: close' tears the connection down when idle.")
	fs.DurationVar(&o.ShutdownWatchTerminationGracePeriod, "shutdown-watch-termination-grace-period", o.ShutdownWatchTerminationGracePeriod, "If set, the longest the apiserver waits for active watches to drain during graceful shutdown; they are ended one after another over this period so their clients do not reconnect all at once.")
}

// validate checks the flags as upstream does, with its messages.
func (o *lifecycleOptions) validate() []error {
	var errs []error
	if o.LivezGracePeriod < 0 {
		errs = append(errs, errors.New("--livez-grace-period can not be a negative value"))
	}
	if o.GoawayChance < 0 || o.GoawayChance > 0.02 {
		errs = append(errs, errors.New("--goaway-chance can not be less than 0 or greater than 0.02"))
	}
	if o.ShutdownWatchTerminationGracePeriod < 0 {
		errs = append(errs, errors.New("shutdown-watch-termination-grace-period, if provided, can not be a negative value"))
	}
	for _, p := range o.CorsAllowedOriginList {
		if err := validateCorsOrigin(p); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// validateCorsOrigin refuses a pattern that does not compile, or that is
// not pinned to the start and end of the host (CVE-2022-1996): upstream
// looks for "^" or "//" and for "$" or ":".
func validateCorsOrigin(p string) error {
	if p == "" {
		return errors.New("empty value in --cors-allowed-origins")
	}
	if _, err := regexp.Compile(p); err != nil {
		return fmt.Errorf("--cors-allowed-origins has an invalid regular expression: %w", err)
	}
	pinStart := strings.Contains(p, "^") || strings.Contains(p, "//")
	pinEnd := strings.Contains(p, "$") || strings.Contains(p, ":")
	if !pinStart || !pinEnd {
		return fmt.Errorf("--cors-allowed-origins has an invalid regular expression %q: regular expression does not pin to start/end of host in the origin header", p)
	}
	return nil
}

// fill puts valid options into c.
func (o *lifecycleOptions) fill(c *controlplane.Config) {
	c.Lifecycle.ShutdownSendRetryAfter = o.ShutdownSendRetryAfter
	c.Lifecycle.ShutdownWatchTerminationGracePeriod = o.ShutdownWatchTerminationGracePeriod
	c.Lifecycle.GoawayChance = o.GoawayChance
	c.Lifecycle.CorsAllowedOriginList = o.CorsAllowedOriginList
	c.Lifecycle.LivezGracePeriod = o.LivezGracePeriod
}
