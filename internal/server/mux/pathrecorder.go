// Package mux is the router of the generic server: exact paths and path
// prefixes, changeable while serving (custom resources and API services come
// and go at runtime), with the list of registered paths that "/" reports.
package mux

import (
	"cmp"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// PathRecorderMux routes a request by exact path first, then by the longest
// registered prefix, and otherwise to its not-found handler. Registration
// drops the immutable routing table and the next lookup builds a new one,
// so serving takes a lock only after a change, and a server that
// registers hundreds of paths before it serves builds the table once.
type PathRecorderMux struct {
	name   string
	logger *slog.Logger

	mu       sync.Mutex // serialises writers; readers use table
	exact    map[string]http.Handler
	prefixes map[string]http.Handler
	listed   []string // paths reported by ListedPaths, in registration order
	notFound http.Handler

	table atomic.Pointer[routingTable] // nil after a change
}

// routingTable is one immutable snapshot of the mux.
type routingTable struct {
	exact    map[string]http.Handler
	prefixes []prefixRoute // longest prefix first
	notFound http.Handler
}

type prefixRoute struct {
	prefix  string
	handler http.Handler
}

// NewPathRecorderMux returns an empty mux whose not-found handler is
// http.NotFoundHandler. name appears in log lines; a nil logger discards.
func NewPathRecorderMux(name string, logger *slog.Logger) *PathRecorderMux {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	m := &PathRecorderMux{
		name:     name,
		logger:   logger,
		exact:    map[string]http.Handler{},
		prefixes: map[string]http.Handler{},
		notFound: http.NotFoundHandler(),
	}
	return m
}

// Handle registers h for exactly path and lists path.
func (m *PathRecorderMux) Handle(path string, h http.Handler) {
	m.register(path, h, false, true)
}

// HandleFunc registers f for exactly path and lists path.
func (m *PathRecorderMux) HandleFunc(path string, f func(http.ResponseWriter, *http.Request)) {
	m.Handle(path, http.HandlerFunc(f))
}

// UnlistedHandle registers h for exactly path without listing it.
func (m *PathRecorderMux) UnlistedHandle(path string, h http.Handler) {
	m.register(path, h, false, false)
}

// HandlePrefix registers h for every path starting with prefix, which must
// end in "/" so that "/apis/foo/" never matches "/apis/foobar". It panics
// otherwise: that is a programming error found at start-up.
func (m *PathRecorderMux) HandlePrefix(prefix string, h http.Handler) {
	m.register(prefix, h, true, true)
}

// UnlistedHandlePrefix is HandlePrefix without listing the prefix.
func (m *PathRecorderMux) UnlistedHandlePrefix(prefix string, h http.Handler) {
	m.register(prefix, h, true, false)
}

func (m *PathRecorderMux) register(path string, h http.Handler, prefix, listed bool) {
	if prefix && !strings.HasSuffix(path, "/") {
		panic(fmt.Sprintf("mux %s: prefix %q must end in a trailing slash", m.name, path))
	}
	if h == nil {
		panic(fmt.Sprintf("mux %s: nil handler for %q", m.name, path))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	target := m.exact
	if prefix {
		target = m.prefixes
	}
	if _, dup := target[path]; dup {
		// The newer registration wins, as upstream; a duplicate usually
		// means two components claim one path, which is worth a log line.
		m.logger.Warn("duplicate path registration", "mux", m.name, "path", path)
	}
	target[path] = h
	if listed && !slices.Contains(m.listed, path) {
		m.listed = append(m.listed, path)
	}
	m.refreshLocked()
}

// Unregister removes the exact and the prefix registration of path.
func (m *PathRecorderMux) Unregister(path string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.exact, path)
	delete(m.prefixes, path)
	m.listed = slices.DeleteFunc(m.listed, func(p string) bool { return p == path })
	m.refreshLocked()
}

// NotFoundHandler sets the handler for paths nothing else matches; the
// generic server chains muxes and delegates this way.
func (m *PathRecorderMux) NotFoundHandler(h http.Handler) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.notFound = h
	m.refreshLocked()
}

// ListedPaths returns the listed paths, sorted.
func (m *PathRecorderMux) ListedPaths() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	paths := slices.Clone(m.listed)
	slices.Sort(paths)
	return paths
}

// Handler returns the handler that would serve path, and whether one was
// registered for it (false means the not-found handler).
func (m *PathRecorderMux) Handler(path string) (http.Handler, bool) {
	return m.routes().lookup(path)
}

// ServeHTTP dispatches r by its URL path.
func (m *PathRecorderMux) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h, _ := m.routes().lookup(r.URL.Path)
	h.ServeHTTP(w, r)
}

// refreshLocked drops the routing table; routes builds the next one.
func (m *PathRecorderMux) refreshLocked() { m.table.Store(nil) }

// routes is the current routing table, built if a change dropped it.
func (m *PathRecorderMux) routes() *routingTable {
	if t := m.table.Load(); t != nil {
		return t
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if t := m.table.Load(); t != nil {
		return t
	}
	t := m.buildLocked()
	m.table.Store(t)
	return t
}

func (m *PathRecorderMux) buildLocked() *routingTable {
	t := &routingTable{
		exact:    make(map[string]http.Handler, len(m.exact)),
		prefixes: make([]prefixRoute, 0, len(m.prefixes)),
		notFound: m.notFound,
	}
	for p, h := range m.exact {
		t.exact[p] = h
	}
	for p, h := range m.prefixes {
		t.prefixes = append(t.prefixes, prefixRoute{p, h})
	}
	// Longest first so that the most specific prefix wins; ties cannot
	// happen between distinct strings of one length, but sort fully for a
	// deterministic table.
	slices.SortFunc(t.prefixes, func(a, b prefixRoute) int {
		if c := cmp.Compare(len(b.prefix), len(a.prefix)); c != 0 {
			return c
		}
		return strings.Compare(a.prefix, b.prefix)
	})
	return t
}

func (t *routingTable) lookup(path string) (http.Handler, bool) {
	if h, ok := t.exact[path]; ok {
		return h, true
	}
	for _, p := range t.prefixes {
		if strings.HasPrefix(path, p.prefix) {
			return p.handler, true
		}
	}
	return t.notFound, false
}
