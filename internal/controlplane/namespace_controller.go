package controlplane

import (
	"log/slog"

	"k8s.io/client-go/discovery"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/internal/controllers/namespace"
)

// newNamespaceController builds the namespace controller over the
// loopback client, as kube-controller-manager runs it against
// kube-apiserver: discovery tells it which namespaced resources are
// served at each pass, so custom resources are emptied too. It hears of
// terminating namespaces from the server's shared namespace informer.
func newNamespaceController(loopback *rest.Config, namespaces coreinformers.NamespaceInformer, logger *slog.Logger) (*namespace.Controller, error) {
	cfg := rest.CopyConfig(loopback)
	cfg.UserAgent = "kapi/namespace-controller"
	protobuf := rest.CopyConfig(cfg)
	protobuf.ContentType = "application/vnd.kubernetes.protobuf"
	cs, err := newLazyClientset(protobuf)
	if err != nil {
		return nil, err
	}
	md, err := metadata.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return namespace.New(namespace.Config{
		Client:     cs,
		Namespaces: namespaces,
		Metadata:   md,
		Discover:   dc.ServerPreferredNamespacedResourcesWithContext,
		Logger:     logger,
	}), nil
}
