package server

import (
	"net/http"
	"regexp"

	"github.com/kapi-dev/kapi/internal/server/filters"
	"github.com/kapi-dev/kapi/internal/server/healthz"
)

// corsOrigins compiles the CORS origins New already checked.
func corsOrigins(c *Config) []*regexp.Regexp {
	res, err := filters.CompileOrigins(c.CorsAllowedOriginList)
	if err != nil {
		// New refuses such a Config before building the chain.
		panic(err)
	}
	return res
}

// validateLifecycle refuses lifecycle settings the chain cannot honour.
func (c *Config) validateLifecycle() error {
	_, err := filters.CompileOrigins(c.CorsAllowedOriginList)
	return err
}

// livezGrace wraps a post-start hook's /livez check so that it passes for
// LivezGracePeriod after the hook was added, as upstream's boot-sequence
// checks do: a slow start must not get the process restarted by a liveness
// probe. /readyz and /healthz keep the plain check.
func (s *GenericServer) livezGrace(c healthz.Check) healthz.Check {
	grace := s.config.LivezGracePeriod
	if grace <= 0 {
		return c
	}
	clk := s.config.Clock
	until := clk.Now().Add(grace)
	return healthz.NamedCheck(c.Name(), func(r *http.Request) error {
		if clk.Now().Before(until) {
			return nil
		}
		return c.Check(r)
	})
}
