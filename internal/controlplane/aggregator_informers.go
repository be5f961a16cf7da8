package controlplane

import (
	"k8s.io/client-go/rest"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	apiregistrationclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"
	apiregistrationinformers "k8s.io/kube-aggregator/pkg/client/informers/externalversions"
	apiregistrationinformersv1 "k8s.io/kube-aggregator/pkg/client/informers/externalversions/apiregistration/v1"
	apiregistrationinterfaces "k8s.io/kube-aggregator/pkg/client/informers/externalversions/internalinterfaces"

	"github.com/kapi-dev/kapi/internal/endpoints/inprocess"
	"github.com/kapi-dev/kapi/internal/server"
)

// aggregatorInformers is the aggregator's one APIService informer, as
// upstream's aggregator has one informer factory for all its controllers:
// the proxy registration, availability, discovery and OpenAPI hooks add
// their handlers to it, and start-kube-aggregator-informers starts it.
// One list and watch per server instead of one per hook.
type aggregatorInformers struct {
	client      apiregistrationclient.Interface
	factory     apiregistrationinformers.SharedInformerFactory
	apiServices apiregistrationinformersv1.APIServiceInformer
}

func newAggregatorInformers(loopback *rest.Config, local *inprocess.Resources) (*aggregatorInformers, error) {
	cfg := rest.CopyConfig(loopback)
	cfg.UserAgent = "kapi/kube-aggregator"
	client, err := apiregistrationclient.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	factory := apiregistrationinformers.NewSharedInformerFactory(client, 0)
	preferInProcess[apiregistrationclient.Interface, apiregistrationinterfaces.NewInformerFunc](factory, local, "", nil, &apiregistrationv1.APIService{})
	apiServices := factory.Apiregistration().V1().APIServices()
	apiServices.Informer() // known to the factory before it starts
	return &aggregatorInformers{client: client, factory: factory, apiServices: apiServices}, nil
}

// forHook is the shared APIService informer and a service resolver with a
// client named after the hook.
func (a *aggregatorInformers) forHook(hc server.PostStartHookContext, userAgent string) (apiregistrationinformersv1.APIServiceInformer, *endpointResolver, error) {
	client, err := hookClient(hc.LoopbackClientConfig, userAgent)
	if err != nil {
		return nil, nil, err
	}
	resolver := &endpointResolver{}
	resolver.start(client)
	return a.apiServices, resolver, nil
}
