// Package discovery serves the discovery documents: /api, /apis and
// /apis/<group> (legacy), their aggregated form (apidiscovery.k8s.io/v2
// APIGroupDiscoveryList, which kubectl asks for first), and the
// APIResourceList of each group version.
package discovery

import (
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/kapi-dev/kapi/internal/endpoints/handlers/responsewriters"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

// Options configure a Manager.
type Options struct {
	// ServerAddress is the host:port clients should use, reported in
	// serverAddressByClientCIDRs; empty means the Host the request came to.
	ServerAddress string
	// Logger; nil discards.
	Logger *slog.Logger
}

// Manager holds the group versions a server serves and answers the
// discovery documents built from them. Servers add group versions as they
// install them and remove them (CRDs) as they go. Safe for concurrent use.
type Manager struct {
	opts   Options
	scheme *runtime.Scheme
	codecs serializer.CodecFactory

	mu     sync.RWMutex
	groups []*groupEntry // in registration order, which is priority order
	// cached aggregated documents of /api (core) and /apis, nil when stale
	aggregated map[bool]*aggregatedDoc
	// remote are the group versions of aggregated servers.
	remote map[schema.GroupVersion]RemoteVersion
	// localPriority is the groupPriorityMinimum of a local group.
	localPriority func(group string) int32
}

type groupEntry struct {
	name     string
	versions []versionEntry // preferred first
}

type versionEntry struct {
	version   metav1.GroupVersionForDiscovery
	resources []metav1.APIResource
}

// NewManager returns an empty Manager.
func NewManager(opts Options) *Manager {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	scheme := runtime.NewScheme()
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	if err := apidiscoveryv2.AddToScheme(scheme); err != nil {
		panic(err) // registering a fixed set of generated types cannot fail
	}
	return &Manager{opts: opts, scheme: scheme, codecs: serializer.NewCodecFactory(scheme), aggregated: map[bool]*aggregatedDoc{}}
}

// AddGroupVersion adds (or replaces) a version of group with its
// resources. Groups and versions are listed in the order first added, so
// add the preferred version of a group first. group "" is the legacy core
// group served under /api.
func (m *Manager) AddGroupVersion(group string, version metav1.GroupVersionForDiscovery, resources []metav1.APIResource) {
	m.mu.Lock()
	defer m.mu.Unlock()
	g := m.findLocked(group)
	if g == nil {
		g = &groupEntry{name: group}
		m.groups = append(m.groups, g)
	}
	entry := versionEntry{version: version, resources: slices.Clone(resources)}
	if i := slices.IndexFunc(g.versions, func(v versionEntry) bool { return v.version.Version == version.Version }); i >= 0 {
		g.versions[i] = entry
	} else {
		g.versions = append(g.versions, entry)
	}
	clear(m.aggregated)
	m.opts.Logger.Debug("discovery: added group version", "group", group, "version", version.Version)
}

// RemoveGroupVersion removes one version; the group goes with its last.
func (m *Manager) RemoveGroupVersion(gv schema.GroupVersion) {
	m.mu.Lock()
	defer m.mu.Unlock()
	g := m.findLocked(gv.Group)
	if g == nil {
		return
	}
	g.versions = slices.DeleteFunc(g.versions, func(v versionEntry) bool { return v.version.Version == gv.Version })
	if len(g.versions) == 0 {
		m.groups = slices.DeleteFunc(m.groups, func(e *groupEntry) bool { return e == g })
	}
	clear(m.aggregated)
}

// RemoveGroup removes a group and all its versions.
func (m *Manager) RemoveGroup(group string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.groups = slices.DeleteFunc(m.groups, func(e *groupEntry) bool { return e.name == group })
	clear(m.aggregated)
}

func (m *Manager) findLocked(group string) *groupEntry {
	for _, g := range m.groups {
		if g.name == group {
			return g
		}
	}
	return nil
}

// ServeHTTP serves /api, /apis and /apis/<group> (with or without a
// trailing slash); other paths get the upstream 404.
func (m *Manager) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	path := strings.TrimSuffix(req.URL.Path, "/")
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		m.writeError(w, req, apierrors.NewGenericServerResponse(http.StatusMethodNotAllowed, "", schema.GroupResource{}, "", "", 0, false))
		return
	}
	switch {
	case path == "/api":
		request.MarkRouted(req.Context())
		m.serveRoot(w, req, true)
	case path == "/apis":
		// Upstream counts its discovery roots among its requests.
		request.MarkRouted(req.Context())
		m.serveRoot(w, req, false)
	case strings.HasPrefix(path, "/apis/") && !strings.Contains(path[len("/apis/"):], "/"):
		m.serveGroup(w, req, path[len("/apis/"):])
	default:
		m.writeError(w, req, notFound())
	}
}

// serveRoot answers the aggregated document when the Accept header asks
// for it, the legacy one otherwise.
func (m *Manager) serveRoot(w http.ResponseWriter, req *http.Request, core bool) {
	if wantsAggregated(req, m.codecs) {
		m.serveAggregated(w, req, core)
		return
	}
	if core {
		m.serveAPIVersions(w, req)
		return
	}
	m.serveGroupList(w, req)
}

func (m *Manager) writeError(w http.ResponseWriter, req *http.Request, err error) {
	responsewriters.ErrorNegotiated(err, m.codecs, schema.GroupVersion{}, w, req)
}

// notFound is the Status kube-apiserver answers for an unknown path.
func notFound() error {
	return apierrors.NewGenericServerResponse(http.StatusNotFound, "", schema.GroupResource{}, "", "", 0, false)
}

// serverAddress is the address clients reached: the configured one, or
// the request's Host with the scheme's default port added.
func (m *Manager) serverAddress(req *http.Request) string {
	if m.opts.ServerAddress != "" {
		return m.opts.ServerAddress
	}
	host := req.Host
	if _, _, err := net.SplitHostPort(host); err == nil {
		return host
	}
	port := "80"
	if req.TLS != nil {
		port = "443"
	}
	return net.JoinHostPort(strings.Trim(host, "[]"), port)
}
