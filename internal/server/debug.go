package server

import (
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/pprof"
	"runtime"
	"strconv"
	"sync/atomic"
)

// Verbosity is the server's -v level, changeable while it runs through
// /debug/flags/v. It is an slog.Leveler mapping -v as kapi's command line
// does (0-3 info, 4 and above debug), so a logger built on it follows the
// changes, and the request log (-v=3) reads it on every request.
type Verbosity struct{ v atomic.Int32 }

// NewVerbosity starts at v.
func NewVerbosity(v int) *Verbosity {
	vb := &Verbosity{}
	vb.Set(v)
	return vb
}

// Get returns the level.
func (vb *Verbosity) Get() int { return int(vb.v.Load()) }

// Set changes the level.
func (vb *Verbosity) Set(v int) { vb.v.Store(int32(v)) }

// Enabled tells whether messages of level v are logged (klog's V(v)).
func (vb *Verbosity) Enabled(v int) bool { return vb != nil && vb.Get() >= v }

// Level implements slog.Leveler.
func (vb *Verbosity) Level() slog.Level {
	switch v := vb.Get(); {
	case v >= 4:
		return slog.LevelDebug
	case v < 0:
		return slog.LevelWarn
	default:
		return slog.LevelInfo
	}
}

// installDebug serves, with --profiling, /debug/pprof/ and /debug/flags/v
// behind the filter chain (so only users allowed the non-resource URLs
// reach them), as kube-apiserver does; --contention-profiling also turns
// on the block profile.
func (s *GenericServer) installDebug() {
	c := s.config
	if !c.EnableProfiling {
		return
	}
	m := s.Handler.NonAPIMux
	m.UnlistedHandle("/debug/pprof", http.RedirectHandler("/debug/pprof/", http.StatusFound))
	m.UnlistedHandlePrefix("/debug/pprof/", http.HandlerFunc(pprof.Index))
	m.UnlistedHandle("/debug/pprof/cmdline", http.HandlerFunc(pprof.Cmdline))
	m.UnlistedHandle("/debug/pprof/profile", http.HandlerFunc(pprof.Profile))
	m.UnlistedHandle("/debug/pprof/symbol", http.HandlerFunc(pprof.Symbol))
	m.UnlistedHandle("/debug/pprof/trace", http.HandlerFunc(pprof.Trace))
	if c.EnableContentionProfiling {
		runtime.SetBlockProfileRate(1)
	}
	m.UnlistedHandle("/debug/flags", http.HandlerFunc(flagsIndex))
	m.UnlistedHandlePrefix("/debug/flags/", http.HandlerFunc(flagsIndex))
	m.UnlistedHandle("/debug/flags/v", verbosityHandler(c.Verbosity))
}

// flagsIndex lists the flags that can be changed at run time.
func flagsIndex(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<html>\n<head>\n<title>/debug/flags/</title>\n</head>\n<body>\n/debug/flags/<br>\n<br>\nflags:<br>\n<table>\n<tr>%s<br>\n</table>\n<br>\nfull flags configurable<br>\n</body>\n</html>\n", html.EscapeString("v"))
}

// verbosityHandler sets the level from a PUT body holding a number and
// answers as upstream's klog setter; other methods get 406.
func verbosityHandler(vb *Verbosity) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPut {
			writePlain(w, http.StatusNotAcceptable, "unsupported http method")
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, 64))
		if err != nil {
			writePlain(w, http.StatusBadRequest, "error reading request body: "+err.Error())
			return
		}
		val := string(body)
		v, err := strconv.ParseUint(val, 10, 31)
		if err != nil {
			writePlain(w, http.StatusBadRequest, err.Error())
			return
		}
		vb.Set(int(v))
		writePlain(w, http.StatusOK, "successfully set klog.logging.verbosity to "+val)
	})
}

func writePlain(w http.ResponseWriter, code int, text string) {
	w.Header().Set("Content-Type", "text/plain")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	fmt.Fprintln(w, text)
}
