package controlplane

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apiextensionsinformers "k8s.io/apiextensions-apiserver/pkg/client/informers/externalversions"
	apiextensionsinterfaces "k8s.io/apiextensions-apiserver/pkg/client/informers/externalversions/internalinterfaces"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	apiregistrationclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"
	apiregistrationinformers "k8s.io/kube-aggregator/pkg/client/informers/externalversions"
	apiregistrationinterfaces "k8s.io/kube-aggregator/pkg/client/informers/externalversions/internalinterfaces"

	"github.com/kapi-dev/kapi/internal/controllers/autoregister"
	"github.com/kapi-dev/kapi/internal/endpoints/inprocess"
	"github.com/kapi-dev/kapi/internal/server"
	"github.com/kapi-dev/kapi/internal/server/healthz"
)

// autoregisterUserAgent is the autoregister client's; its field manager
// is the one a seeded APIService records (apiservice_seed.go).
const autoregisterUserAgent = "kapi/autoregister"

// addAutoregisterHook runs the registration of local APIServices, as
// kube-apiserver does (its "kube-apiserver-autoregistration" hook, not a
// --controllers one): one per built-in group version of builtin, synced
// at start, and one per served CRD version, kept as CRDs change. Its
// health check "autoregister-completion" (on /healthz, /livez and
// /readyz, as upstream's boot-sequence checks) passes once each built-in
// one was seen Available.
func addAutoregisterHook(s *server.GenericServer, builtin []schema.GroupVersion, local *inprocess.Resources, logger *slog.Logger) error {
	builtin = slices.Clone(builtin)
	var names []string
	for _, gv := range builtin {
		if a := autoregister.BuiltinAPIService(gv); a != nil {
			names = append(names, a.Name)
		}
	}
	completion := autoregister.NewCompletion(names)
	if err := s.AddHealthChecks(healthz.NamedCheck("autoregister-completion", func(*http.Request) error { return completion.Check() })); err != nil {
		return err
	}
	return s.AddPostStartHook("kube-apiserver-autoregistration", func(hc server.PostStartHookContext) error {
		cfg := rest.CopyConfig(hc.LoopbackClientConfig)
		cfg.UserAgent = autoregisterUserAgent
		regClient, err := apiregistrationclient.NewForConfig(cfg)
		if err != nil {
			return fmt.Errorf("apiregistration client: %w", err)
		}
		extClient, err := apiextensionsclient.NewForConfig(cfg)
		if err != nil {
			return fmt.Errorf("apiextensions client: %w", err)
		}
		regInformers := apiregistrationinformers.NewSharedInformerFactory(regClient, 0)
		preferInProcess[apiregistrationclient.Interface, apiregistrationinterfaces.NewInformerFunc](regInformers, local, "", nil, &apiregistrationv1.APIService{})
		if _, err := regInformers.Apiregistration().V1().APIServices().Informer().AddEventHandler(completion.Handler()); err != nil {
			return err
		}
		extInformers := apiextensionsinformers.NewSharedInformerFactory(extClient, 0)
		preferInProcess[apiextensionsclient.Interface, apiextensionsinterfaces.NewInformerFunc](extInformers, local, "", nil, &apiextensionsv1.CustomResourceDefinition{})
		log := logger.With("controller", "autoregister")
		apiServices, err := autoregister.New(regInformers.Apiregistration().V1().APIServices(), regClient.ApiregistrationV1(), log)
		if err != nil {
			return err
		}
		crds, err := autoregister.NewCRDs(extInformers.Apiextensions().V1().CustomResourceDefinitions(), apiServices, log)
		if err != nil {
			return err
		}
		for _, gv := range builtin {
			if s := autoregister.BuiltinAPIService(gv); s != nil {
				apiServices.AddOnStart(s)
			}
		}
		ctx := hc.Context
		regInformers.StartWithContext(ctx)
		extInformers.StartWithContext(ctx)
		go runAutoregister(ctx, apiServices, crds)
		go func() {
			<-ctx.Done()
			regInformers.Shutdown()
			extInformers.Shutdown()
		}()
		return nil
	})
}

// runAutoregister registers the existing CRDs' group versions before the
// APIService controller's first pass, so that it deletes none of theirs,
// then runs both until ctx ends (if it ended first, both only release
// their queues).
func runAutoregister(ctx context.Context, apiServices *autoregister.Controller, crds *autoregister.CRDs) {
	crds.SyncAll(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		crds.Run(ctx, 1)
	}()
	apiServices.Run(ctx, 2)
	<-done
}
