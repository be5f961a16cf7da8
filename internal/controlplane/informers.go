package controlplane

import (
	"sync"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/internal/endpoints/inprocess"
	"github.com/kapi-dev/kapi/internal/server"
)

// sharedInformers is the server's one informer factory over the loopback
// client. Admission plugins and in-process controllers share it, so each
// resource is listed and watched once however many parts read it.
type sharedInformers struct {
	client  kubernetes.Interface
	factory fanoutFactory
	// dynamicClient and dynamic serve parts that read resources of any
	// kind, custom ones included (admission policy parameters); informers
	// asked for after the hook ran are started by startDynamic.
	dynamicClient dynamic.Interface
	dynamic       dynamicinformer.DynamicSharedInformerFactory

	mu   sync.Mutex
	stop <-chan struct{} // set when the start hook ran
}

// newSharedInformers builds the factory; nothing is watched until a part
// asks for an informer and the start hook (or a later Start) runs.
func newSharedInformers(loopback *rest.Config, local *inprocess.Resources) (*sharedInformers, error) {
	cfg := rest.CopyConfig(loopback)
	cfg.UserAgent = "kapi/shared-informers"
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(rest.CopyConfig(loopback))
	if err != nil {
		return nil, err
	}
	return &sharedInformers{
		client:        client,
		factory:       newFanoutFactory(informers.NewSharedInformerFactory(client, 0), local),
		dynamicClient: dyn,
		dynamic:       dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0),
	}, nil
}

// addHook starts the informers asked for so far once the server serves
// (parts that ask later call factory.Start again) and stops them all when
// the server shuts down.
func (si *sharedInformers) addHook(s *server.GenericServer) error {
	if err := s.AddReadyzChecks(si.syncCheck()); err != nil {
		return err
	}
	return s.AddPostStartHook("start-shared-informers", func(hc server.PostStartHookContext) error {
		si.factory.StartWithContext(hc.Context)
		si.mu.Lock()
		si.stop = hc.Context.Done()
		si.dynamic.Start(si.stop)
		si.mu.Unlock()
		go func() {
			<-hc.Context.Done()
			si.factory.Shutdown()
			si.dynamic.Shutdown()
		}()
		return nil
	})
}

// startDynamic starts the dynamic informers asked for since the start
// hook ran; before it ran, the hook starts them.
func (si *sharedInformers) startDynamic() {
	si.mu.Lock()
	defer si.mu.Unlock()
	if si.stop != nil {
		si.dynamic.Start(si.stop)
	}
}
