package controlplane

import (
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
)

// metadataClients are the clients of a controller that follows every
// kind discovery lists (the garbage collector, the quota controller's
// replenishment): a protobuf clientset for its own writes, a metadata
// client (JSON: PartialObjectMetadata of any resource, custom ones
// included) and discovery, all as kapi/<userAgent>.
type metadataClients struct {
	config    *rest.Config
	clientset kubernetes.Interface
	metadata  metadata.Interface
	discovery *discovery.DiscoveryClient
}

func (cc *controllerContext) metadataClients(userAgent string) (*metadataClients, error) {
	cfg := rest.CopyConfig(cc.loopback)
	cfg.UserAgent = "kapi/" + userAgent
	cs, err := cc.client(userAgent)
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
	return &metadataClients{config: cfg, clientset: cs, metadata: md, discovery: dc}, nil
}
