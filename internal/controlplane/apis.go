package controlplane

import (
	"fmt"
	"log/slog"
	"net/http"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/managedfields"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/endpoints"
	"github.com/kapi-dev/kapi/internal/endpoints/discovery"
	"github.com/kapi-dev/kapi/internal/endpoints/inprocess"
	"github.com/kapi-dev/kapi/internal/endpoints/openapi"
	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/server"
)

// apiInstaller puts API groups onto a generic server and into its discovery.
type apiInstaller struct {
	scheme            *runtime.Scheme
	codecs            serializer.CodecFactory
	admission         admission.Interface
	maxBodyBytes      int64
	minRequestTimeout time.Duration
	logger            *slog.Logger
	discovery         *discovery.Manager
	// openapi describes every installed group version; typeConverter
	// gives the handlers the same schemas for server-side apply.
	openapi       *openapi.Service
	typeConverter managedfields.TypeConverter
	// installed are the group versions installed so far, in order: the
	// aggregator registers a local APIService for each.
	installed []schema.GroupVersion
	// local is bound every resource installed, for the server's
	// in-process informers; nil when there are none.
	local *inprocess.Resources
}

// install serves every version of g on s and announces it in discovery.
func (in *apiInstaller) install(s *server.GenericServer, g rest.APIGroupInfo) error {
	for _, v := range g.Versions {
		gv := schema.GroupVersion{Group: g.Group, Version: v}
		agv := &endpoints.APIGroupVersion{
			GroupVersion:        gv,
			Storage:             g.Storage[v],
			Scheme:              in.scheme,
			Codecs:              in.codecs,
			Admission:           in.admission,
			MaxRequestBodyBytes: in.maxBodyBytes,
			MinRequestTimeout:   in.minRequestTimeout,
			Logger:              in.logger,
			TypeConverter:       in.typeConverter,
		}
		if in.local != nil {
			in.local.Bind(gv, g.Storage[v])
		}
		h, resources, err := agv.Install()
		if err != nil {
			return fmt.Errorf("installing %s: %w", gv, err)
		}
		prefix := "/apis/" + gv.String()
		if g.Group == "" {
			prefix = "/api/" + v
		}
		s.Handler.APIMux.Handle(prefix, h)
		s.Handler.APIMux.HandlePrefix(prefix+"/", h)
		in.discovery.AddGroupVersion(g.Group, metav1.GroupVersionForDiscovery{GroupVersion: gv.String(), Version: v}, resources)
		in.openapi.AddGroupVersion(gv, resources, g.Storage[v])
		in.installed = append(in.installed, gv)
	}
	if g.Group != "" {
		s.Handler.APIMux.Handle("/apis/"+g.Group, in.discovery)
		s.Handler.APIMux.Handle("/apis/"+g.Group+"/", in.discovery)
	}
	return nil
}

// installDiscoveryRoots serves /api and /apis from the discovery manager.
func (in *apiInstaller) installDiscoveryRoots(s *server.GenericServer) {
	for _, p := range []string{"/api", "/api/", "/apis", "/apis/"} {
		s.Handler.APIMux.Handle(p, in.discovery)
	}
}

// installOpenAPI serves the OpenAPI documents of everything installed.
// They are built in the background, so startup does not wait for them;
// a request that comes first waits for the build.
func (in *apiInstaller) installOpenAPI(s *server.GenericServer) {
	built := make(chan struct{})
	go func() {
		defer close(built)
		start := time.Now()
		if err := in.openapi.Build(); err != nil {
			in.logger.Error("building the OpenAPI documents; the resources named are left out", "err", err)
		}
		in.logger.Debug("built the OpenAPI documents", "duration", time.Since(start))
	}()
	in.openapi.Install(gatedMux{mux: s.Handler.NonAPIMux, open: built})
}

// gatedMux installs handlers that wait until open is closed.
type gatedMux struct {
	mux  openapi.Mux
	open <-chan struct{}
}

func (g gatedMux) Handle(path string, h http.Handler) { g.mux.Handle(path, g.gate(h)) }

func (g gatedMux) HandlePrefix(prefix string, h http.Handler) {
	g.mux.HandlePrefix(prefix, g.gate(h))
}

func (g gatedMux) gate(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		select {
		case <-g.open:
			h.ServeHTTP(w, req)
		case <-req.Context().Done():
		}
	})
}
