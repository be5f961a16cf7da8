package controlplane

import (
	"log/slog"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	apiregistrationclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"
	apiregistrationinformers "k8s.io/kube-aggregator/pkg/client/informers/externalversions"

	"github.com/kapi-dev/kapi/internal/controllers/worker"
	"github.com/kapi-dev/kapi/internal/server"
)

// addRemoteAPIServicesHook proxies every remote APIService's group
// version from the aggregator (upstream's
// "apiservice-registration-controller" hook): proxies are installed,
// replaced and removed as APIServices change; and keeps their Available
// condition (upstream's "apiservice-status-available-controller").
func addRemoteAPIServicesHook(s *server.GenericServer, c *Config, logger *slog.Logger) error {
	cert, err := loadProxyClientCert(c.Security.ProxyClientCertFile, c.Security.ProxyClientKeyFile)
	if err != nil {
		return err
	}
	return s.AddPostStartHook("apiservice-registration-controller", func(hc server.PostStartHookContext) error {
		client, err := hookClient(hc.LoopbackClientConfig, "apiservice-registration")
		if err != nil {
			return err
		}
		resolver := &endpointResolver{}
		resolver.start(client)
		cfg := rest.CopyConfig(hc.LoopbackClientConfig)
		cfg.UserAgent = "kapi/apiservice-registration"
		regClient, err := apiregistrationclient.NewForConfig(cfg)
		if err != nil {
			return err
		}
		remotes := &remoteAPIServices{
			mux: s.Handler.APIMux, resolver: resolver, clientCert: cert,
			logger: logger.With("component", "aggregator"), proxies: map[string]*remoteProxy{},
		}
		factory := apiregistrationinformers.NewSharedInformerFactory(regClient, 0)
		informer := factory.Apiregistration().V1().APIServices()
		avail := &availability{
			lister: informer.Lister(), client: regClient.ApiregistrationV1(), kube: client, remotes: remotes,
			queue: worker.NewQueue("apiservice-availability"), logger: logger.With("controller", "apiservice-availability"),
		}
		set := func(obj any) {
			if a, ok := obj.(*apiregistrationv1.APIService); ok {
				remotes.set(a)
				avail.queue.Add(a.Name)
			}
		}
		if _, err := informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    set,
			UpdateFunc: func(_, obj any) { set(obj) },
			DeleteFunc: func(obj any) {
				if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
					obj = t.Obj
				}
				if a, ok := obj.(*apiregistrationv1.APIService); ok {
					remotes.remove(a.Name, "/apis/"+a.Spec.Group+"/"+a.Spec.Version)
				}
			},
		}); err != nil {
			return err
		}
		factory.Start(hc.Context.Done())
		go func() {
			if cache.WaitForCacheSync(hc.Context.Done(), informer.Informer().HasSynced) {
				avail.run(hc.Context)
				return
			}
			avail.queue.ShutDown()
		}()
		go func() {
			<-hc.Context.Done()
			factory.Shutdown()
		}()
		return nil
	})
}
