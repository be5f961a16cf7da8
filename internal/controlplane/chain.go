package controlplane

import (
	"context"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/endpoints/discovery"
	"github.com/kapi-dev/kapi/internal/endpoints/handlers/responsewriters"
	"github.com/kapi-dev/kapi/internal/endpoints/inprocess"
	"github.com/kapi-dev/kapi/internal/server"
	sadiscovery "github.com/kapi-dev/kapi/internal/serviceaccount/discovery"
	"github.com/kapi-dev/kapi/internal/storage/metrics"
)

// chainDeps are what the servers of the chain are built from, besides the
// config.
type chainDeps struct {
	scheme   *runtime.Scheme
	getter   *restOptionsGetter
	logger   *slog.Logger
	storage  *storageHandle
	metrics  *metrics.Metrics
	registry *prometheus.Registry
	authn    *authentication
	authz    *authorization
	// local feeds the server's informers from its storage; the API
	// installer binds every resource it installs.
	local *inprocess.Resources
	// informers is the server's shared factory: admission, the
	// aggregator's service resolver and the controllers read it.
	informers *sharedInformers
	// rootCA verifies kapi's serving certificate; controllers publish it.
	rootCA []byte
	// ctx ends with Run: work started while building (the bootstrap seed) stops.
	ctx context.Context
	// afterReady registers work to start once the server is ready (see
	// whenReady).
	afterReady func(func())
	// clientCA is the PEM bundle client certificates are verified with
	// (kapi's CA and --client-ca-file), published for delegated
	// authentication.
	clientCA []byte
}

// whenReady starts fn once the server is ready.
func (d chainDeps) whenReady(fn func()) {
	if d.afterReady == nil {
		go fn()
		return
	}
	d.afterReady(fn)
}

// serverChain builds aggregator → core → extensions → not found, all on
// one generic server config, and returns the outermost server.
func serverChain(c *Config, sc *server.Config, deps chainDeps) (*server.GenericServer, error) {
	// The extensions server serves CustomResourceDefinitions and custom
	// resources; the core server installs them, as they share its
	// discovery, OpenAPI and admission.
	extensions, err := sc.New("apiextensions-apiserver", server.NewNotFoundDelegate())
	if err != nil {
		return nil, err
	}
	if deps.informers, err = newSharedInformers(sc.LoopbackClientConfig, deps.local); err != nil {
		return nil, err
	}
	if deps.authz != nil {
		deps.authz.lendInformers(deps.informers)
	}
	core, in, err := newCoreServer(c, sc, deps, extensions)
	if err != nil {
		return nil, err
	}
	agg, err := newAggregatorServer(c, sc, deps, core, in)
	if err != nil {
		return nil, err
	}
	// Last, once every group of the chain is installed.
	in.installOpenAPI(core)
	return agg, nil
}

// newCoreServer serves the built-in groups, discovery, and runs the
// bootstrap and namespace controllers as post-start hooks. It returns
// the installer the aggregator installs its group with; the caller
// installs the OpenAPI documents once every group is in.
func newCoreServer(c *Config, sc *server.Config, deps chainDeps, delegate *server.GenericServer) (*server.GenericServer, *apiInstaller, error) {
	scheme, getter, logger := deps.scheme, deps.getter, deps.logger
	s, err := sc.New("kube-apiserver", delegate)
	if err != nil {
		return nil, nil, err
	}
	if err := installStorageObservers(s, c, deps); err != nil {
		return nil, nil, err
	}
	probes := map[string]func(context.Context) error{}
	if deps.storage.etcd != nil {
		probes["etcd-0"] = deps.storage.etcdCheck(c.EtcdHealthcheckTimeout)
	}
	var sec *security
	if deps.authn != nil && deps.authz != nil {
		sec = &security{authn: deps.authn, authz: deps.authz, apiAudiences: c.APIAudiences}
	}
	storage, err := newCoreStorage(c, scheme, getter, probes, sec)
	if err != nil {
		return nil, nil, err
	}
	if deps.authn != nil {
		deps.authn.objects.bind(storage.groups)
	}
	bootstrapCtrl, err := newBootstrapController(c, storage, logger)
	if err != nil {
		return nil, nil, err
	}
	informers := deps.informers
	chain, err := admissionChain(&admissionDeps{config: c, storage: storage, informers: informers, authz: deps.authz, scheme: scheme, metrics: sc.Metrics})
	if err != nil {
		return nil, nil, err
	}
	var adm admission.Interface = sc.Metrics.Admission(chain)
	if c.Tracing != nil && adm != nil {
		adm = admission.Traced(adm)
	}
	oapi := newOpenAPIService(scheme)
	typeConverter := newOpenAPITypeConverter(oapi, logger)
	// The full converter is built a second after the server is ready:
	// until then each kind written gets a converter of its own (see
	// lazyTypeConverter).
	deps.whenReady(func() {
		ctx := deps.ctx
		if ctx == nil {
			ctx = context.Background()
		}
		typeConverter.warm(ctx)
	})
	if deps.authz != nil && sc.AuditBackend == nil && deps.ctx != nil {
		var sets []seedSet
		if deps.authz.rbac != nil {
			sets = append(sets, rbacSeed)
		}
		sets = append(sets, flowControlSeed, priorityClassSeed)
		// Overlaps the rest of the build (it needs only the storage and
		// the type converter); Run waits for it before serving.
		// On fresh storage the seed also writes what the hooks would
		// write straight into storage (the system namespaces, the default
		// ServiceCIDR), alongside its own objects: before the server
		// serves nobody can tell, and the hooks then find them.
		alongside := func(ctx context.Context) error {
			if err := storage.createSystemNamespaces(ctx); err != nil {
				return err
			}
			return bootstrapCtrl.CreateServiceCIDR(ctx)
		}
		env := seedEnv{lookup: storage.lookup, scheme: scheme, tc: typeConverter, alongside: alongside, ready: deps.storage.awaitReady}
		deps.authz.seedEnv = &env
		deps.authz.seed = startBootstrapSeed(deps.ctx, env, sets...)
	}
	in := &apiInstaller{
		scheme:            scheme,
		codecs:            responsewriters.NewCodecFactory(scheme),
		admission:         adm,
		maxBodyBytes:      c.MaxRequestBytes,
		minRequestTimeout: c.MinRequestTimeout,
		logger:            logger,
		discovery:         discovery.NewManager(discovery.Options{Logger: logger}),
		openapi:           oapi,
		typeConverter:     typeConverter,
		local:             deps.local,
	}
	for _, g := range storage.groups {
		if err := in.install(s, g); err != nil {
			return nil, nil, err
		}
	}
	in.installDiscoveryRoots(s)
	if err := installExtensions(c, delegate, deps, in); err != nil {
		return nil, nil, err
	}

	if deps.authz != nil {
		if err := deps.authz.addHooks(s, inProcessLookup(deps.local, storage.lookup), logger); err != nil {
			return nil, nil, err
		}
	}
	if deps.authn != nil {
		// Service-account issuer discovery, for relying parties that
		// verify kapi's tokens.
		handlers, err := sadiscovery.NewHandlers(c.ServiceAccountIssuers[0], "", deps.authn.saKeys)
		if err != nil {
			return nil, nil, err
		}
		for path, h := range handlers {
			s.Handler.NonAPIMux.Handle(path, h)
		}
	}
	if err := s.AddPostStartHook("start-system-namespaces-controller", func(hc server.PostStartHookContext) error {
		return storage.ensureSystemNamespaces(hc.Context)
	}); err != nil {
		return nil, nil, err
	}
	if err := addBootstrapHooks(s, c, storage, bootstrapCtrl, inProcessLookup(deps.local, storage.lookup), logger); err != nil {
		return nil, nil, err
	}
	if err := informers.addHook(s); err != nil {
		return nil, nil, err
	}
	if err := addFlowControlHooks(s, sc.FlowControl, informers, logger); err != nil {
		return nil, nil, err
	}
	if err := addFlowControlConfigHooks(s, c, informers, logger); err != nil {
		return nil, nil, err
	}
	if err := addAuthenticationInfoHooks(s, c, deps.clientCA, deps.local, logger); err != nil {
		return nil, nil, err
	}
	if err := addControllerHooks(s, c, controllerDeps{informers: informers, logger: logger, rootCA: deps.rootCA}); err != nil {
		return nil, nil, err
	}
	if err := addSimulationHook(s, c, controllerDeps{informers: informers, logger: logger}); err != nil {
		return nil, nil, err
	}
	return s, in, nil
}
