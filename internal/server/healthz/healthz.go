// Package healthz serves /healthz, /livez and /readyz: a list of named
// checks, each also reachable at <path>/<name>, with ?verbose and ?exclude,
// in kube-apiserver's plain-text format so that probes and scripts written
// against it read kapi the same way.
package healthz

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
)

// Check is one named health check.
type Check interface {
	Name() string
	// Check returns nil when healthy. The error is logged and shown on the
	// check's own path, but withheld from the public summary.
	Check(r *http.Request) error
}

// NamedCheck adapts a function to Check.
func NamedCheck(name string, check func(r *http.Request) error) Check {
	return &namedCheck{name: name, check: check}
}

type namedCheck struct {
	name  string
	check func(r *http.Request) error
}

func (c *namedCheck) Name() string                { return c.name }
func (c *namedCheck) Check(r *http.Request) error { return c.check(r) }

// PingCheck always passes: it shows the server answers at all.
type PingCheck struct{}

// Name returns "ping".
func (PingCheck) Name() string { return "ping" }

// Check returns nil.
func (PingCheck) Check(*http.Request) error { return nil }

// errShuttingDown is upstream's text for the readyz shutdown check.
var errShuttingDown = errors.New("process is shutting down")

// ShutdownCheck is the readyz check named "shutdown" that fails once
// shuttingDown is closed, so that load balancers stop sending traffic during
// the shutdown delay.
func ShutdownCheck(shuttingDown <-chan struct{}) Check {
	return NamedCheck("shutdown", func(*http.Request) error {
		select {
		case <-shuttingDown:
			return errShuttingDown
		default:
			return nil
		}
	})
}

// Mux is where InstallHandler registers its paths.
type Mux interface {
	Handle(path string, h http.Handler)
}

// InstallHandler serves checks at path (for example "/healthz") and each
// check at path/<name>. With no checks it installs PingCheck. A nil logger
// discards the details of failures.
func InstallHandler(mux Mux, path string, logger *slog.Logger, checks ...Check) {
	if len(checks) == 0 {
		checks = []Check{PingCheck{}}
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	name := strings.Split(strings.TrimPrefix(path, "/"), "/")[0]
	mux.Handle(path, rootHandler(name, slices.Clone(checks), logger))
	for _, c := range checks {
		mux.Handle(path+"/"+c.Name(), checkHandler(c))
	}
}

// rootHandler runs every check not excluded. On success it answers "ok", or
// with ?verbose one line per check and "<name> check passed". On failure it
// always answers verbosely with a 500, the reasons withheld.
func rootHandler(name string, checks []Check, logger *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		excluded := r.URL.Query()["exclude"]
		var out, details bytes.Buffer
		var failed []string
		for _, c := range checks {
			if slices.Contains(excluded, c.Name()) {
				excluded = slices.DeleteFunc(excluded, func(e string) bool { return e == c.Name() })
				fmt.Fprintf(&out, "[+]%s excluded: ok\n", c.Name())
				continue
			}
			if err := c.Check(r); err != nil {
				fmt.Fprintf(&out, "[-]%s failed: reason withheld\n", c.Name())
				fmt.Fprintf(&details, "[-]%s failed: %v\n", c.Name(), err)
				failed = append(failed, c.Name())
				continue
			}
			fmt.Fprintf(&out, "[+]%s ok\n", c.Name())
		}
		if len(excluded) > 0 {
			fmt.Fprintf(&out, "warn: some health checks cannot be excluded: no matches for %s\n", quoted(excluded))
		}
		if len(failed) > 0 {
			logger.Info(name+" check failed", "checks", strings.Join(failed, ","), "details", details.String())
			http.Error(w, out.String()+name+" check failed", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if _, verbose := r.URL.Query()["verbose"]; !verbose {
			fmt.Fprint(w, "ok")
			return
		}
		out.WriteTo(w)
		fmt.Fprintf(w, "%s check passed\n", name)
	})
}

// checkHandler serves one check, with its reason: reaching it by name is
// already a deliberate question.
func checkHandler(c Check) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := c.Check(r); err != nil {
			http.Error(w, fmt.Sprintf("internal server error: %v", err), http.StatusInternalServerError)
			return
		}
		fmt.Fprint(w, "ok")
	})
}

// quoted lists names sorted, each quoted, comma-separated, as upstream.
func quoted(names []string) string {
	names = slices.Clone(names)
	slices.Sort(names)
	names = slices.Compact(names)
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ",")
}
