package controlplane

import (
	"fmt"
	"slices"

	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kapi-dev/kapi/internal/registry/apiregistration/apiservice"
	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/server"
)

// newAggregatorServer builds the head of the chain: it serves
// apiregistration.k8s.io/v1 APIServices (in the core server's discovery
// and OpenAPI, through in), proxies the group versions of remote
// APIServices, and hands every other request to core.
func newAggregatorServer(c *Config, sc *server.Config, deps chainDeps, core *server.GenericServer, in *apiInstaller) (*server.GenericServer, error) {
	s, err := sc.New("kube-aggregator", core)
	if err != nil {
		return nil, err
	}
	storage, err := apiservice.NewStorage(deps.scheme, deps.getter)
	if err != nil {
		return nil, fmt.Errorf("apiservices: %w", err)
	}
	if err := in.install(s, rest.APIGroupInfo{
		Group: apiregistrationv1.GroupName, Versions: []string{"v1"},
		Storage: map[string]map[string]rest.Storage{"v1": storage},
	}); err != nil {
		return nil, err
	}
	if deps.authz != nil && deps.authz.seedEnv != nil {
		// Every group is installed by now: seed their APIServices, as
		// the autoregistration hook would create them.
		env := *deps.authz.seedEnv
		env.lookup, env.alongside = withAPIServices(env.lookup, storage), nil
		deps.authz.apiServiceSeed = startBootstrapSeed(deps.ctx, env, apiServiceSeed(slices.Clone(in.installed)))
	}
	if err := addAutoregisterHook(s, in.installed, deps.local, deps.logger); err != nil {
		return nil, err
	}
	apiServices, err := newAggregatorInformers(sc.LoopbackClientConfig, deps.local)
	if err != nil {
		return nil, err
	}
	if err := addRemoteAPIServicesHook(s, c, apiServices, deps.informers, deps.logger); err != nil {
		return nil, err
	}
	if err := addRemoteDiscoveryHook(s, c, in, apiServices, deps.logger); err != nil {
		return nil, err
	}
	if err := addRemoteOpenAPIHooks(s, c, in, apiServices, deps.logger); err != nil {
		return nil, err
	}
	return s, nil
}
