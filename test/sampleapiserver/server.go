package sampleapiserver

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	openapinamer "k8s.io/apiserver/pkg/endpoints/openapi"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	basecompatibility "k8s.io/component-base/compatibility"
)

// Config is what Start needs to know.
type Config struct {
	// Kubeconfig reaches kapi as the server's own identity: for
	// TokenReviews, SubjectAccessReviews, the
	// extension-apiserver-authentication ConfigMap and the informers of
	// admission and priority and fairness. That identity needs
	// system:auth-delegator, the extension-apiserver-authentication-reader
	// Role in kube-system and read access to what those informers list.
	Kubeconfig string
	// CertDir receives the self-signed serving certificate.
	CertDir string
	// DNSNames are names for the serving certificate besides localhost
	// and 127.0.0.1: the <service>.<namespace>.svc kapi verifies.
	DNSNames []string
	// AuthorizationCacheTTL is how long the answer of a
	// SubjectAccessReview is kept, allowed or not; zero keeps upstream's
	// default (10 s).
	AuthorizationCacheTTL time.Duration
}

// Server is a running sample server, listening on 127.0.0.1.
type Server struct {
	*recorder
	port     int
	caBundle []byte

	cancel context.CancelFunc
	done   chan error
}

// readyPoll is how often Start asks /readyz while the server starts.
const readyPoll = 50 * time.Millisecond

// Start runs the server on a free loopback port and returns once its
// /readyz answers 200, or fails when ctx ends first. Stop ends it.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	rec := &recorder{}
	server, opts, err := newGenericServer(cfg, l, rec)
	if err != nil {
		_ = l.Close()
		return nil, err
	}
	caBundle, err := os.ReadFile(opts.SecureServing.ServerCert.CertKey.CertFile)
	if err != nil {
		_ = l.Close()
		return nil, err
	}
	runCtx, cancel := context.WithCancel(context.Background())
	s := &Server{recorder: rec, port: l.Addr().(*net.TCPAddr).Port, caBundle: caBundle, cancel: cancel, done: make(chan error, 1)}
	prepared := server.PrepareRun()
	go func() { s.done <- prepared.RunWithContext(runCtx) }()
	if err := s.waitReady(ctx); err != nil {
		return nil, errors.Join(err, s.Stop())
	}
	return s, nil
}

// newGenericServer builds the server from upstream's recommended options,
// as sample-apiserver does, without etcd: authentication and
// authorization delegated to the cluster, upstream's default admission
// plugins, priority and fairness, and one API group held in memory.
func newGenericServer(cfg Config, l net.Listener, rec *recorder) (*genericapiserver.GenericAPIServer, *genericoptions.RecommendedOptions, error) {
	scheme := newScheme()
	codecs := serializer.NewCodecFactory(scheme)
	o := genericoptions.NewRecommendedOptions("", codecs.LegacyCodec(SchemeGroupVersion))
	o.Etcd = nil
	o.SecureServing.Listener = l
	o.SecureServing.BindAddress = net.IPv4(127, 0, 0, 1)
	o.SecureServing.BindPort = l.Addr().(*net.TCPAddr).Port
	o.SecureServing.ServerCert.CertDirectory = cfg.CertDir
	if err := o.SecureServing.MaybeDefaultWithSelfSignedCerts("localhost", cfg.DNSNames, []net.IP{net.IPv4(127, 0, 0, 1)}); err != nil {
		return nil, nil, fmt.Errorf("self-signed serving certificate: %w", err)
	}
	o.Authentication.RemoteKubeConfigFile = cfg.Kubeconfig
	o.Authentication.CustomRoundTripperFn = rec.roundTripper
	o.Authorization.RemoteKubeConfigFile = cfg.Kubeconfig
	o.Authorization.CustomRoundTripperFn = rec.roundTripper
	if cfg.AuthorizationCacheTTL > 0 {
		o.Authorization.AllowCacheTTL, o.Authorization.DenyCacheTTL = cfg.AuthorizationCacheTTL, cfg.AuthorizationCacheTTL
	}
	o.CoreAPI.CoreAPIKubeconfigPath = cfg.Kubeconfig
	if errs := o.Validate(); len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}

	c := genericapiserver.NewRecommendedConfig(codecs)
	c.EffectiveVersion = basecompatibility.NewEffectiveVersionFromString("1.0", "", "")
	namer := openapinamer.NewDefinitionNamer(servedScheme())
	c.OpenAPIConfig = genericapiserver.DefaultOpenAPIConfig(openAPIDefinitions, namer)
	c.OpenAPIConfig.Info.Title, c.OpenAPIConfig.Info.Version = "Wardle", "0.1"
	c.OpenAPIV3Config = genericapiserver.DefaultOpenAPIV3Config(openAPIDefinitions, namer)
	c.OpenAPIV3Config.Info.Title, c.OpenAPIV3Config.Info.Version = "Wardle", "0.1"
	c.BuildHandlerChainFunc = func(api http.Handler, c *genericapiserver.Config) http.Handler {
		return genericapiserver.DefaultBuildHandlerChain(rec.wrap(api), c)
	}
	if err := o.ApplyTo(c); err != nil {
		return nil, nil, err
	}
	server, err := c.Complete().New("wardle-apiserver", genericapiserver.NewEmptyDelegate())
	if err != nil {
		return nil, nil, err
	}
	group := genericapiserver.NewDefaultAPIGroupInfo(GroupName, scheme, metav1.ParameterCodec, codecs)
	group.VersionedResourcesStorageMap[SchemeGroupVersion.Version] = map[string]rest.Storage{Resource.Resource: newFlunderStore()}
	if err := server.InstallAPIGroup(&group); err != nil {
		return nil, nil, err
	}
	informers := c.SharedInformerFactory
	server.AddPostStartHookOrDie("start-wardle-informers", func(hc genericapiserver.PostStartHookContext) error {
		informers.Start(hc.Done())
		return nil
	})
	return server, o, nil
}

// waitReady polls /readyz, which the delegated authorizer lets anyone
// read, until it answers 200.
func (s *Server) waitReady(ctx context.Context) error {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(s.caBundle)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	defer client.CloseIdleConnections()
	tick := time.NewTicker(readyPoll)
	defer tick.Stop()
	var last error
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL()+"/readyz", nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("/readyz: %s", resp.Status)
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("sample server not ready: %w (last: %v)", ctx.Err(), last)
		case err := <-s.done:
			s.done <- err // for Stop
			return fmt.Errorf("sample server stopped before it was ready: %w", err)
		case <-tick.C:
		}
	}
}

// Port is the loopback port the server listens on.
func (s *Server) Port() int { return s.port }

// URL is the server's https address.
func (s *Server) URL() string { return fmt.Sprintf("https://127.0.0.1:%d", s.port) }

// CABundle is the PEM bundle that verifies the serving certificate: the
// self-signed CA and the certificate, as upstream writes them.
func (s *Server) CABundle() []byte { return s.caBundle }

// Stop shuts the server down and waits until it has; it may be called
// more than once.
func (s *Server) Stop() error {
	s.cancel()
	err := <-s.done
	s.done <- err
	return err
}
