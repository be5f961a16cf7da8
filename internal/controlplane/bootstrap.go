package controlplane

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	schedulingv1client "k8s.io/client-go/kubernetes/typed/scheduling/v1"

	"github.com/kapi-dev/kapi/internal/controllers/bootstrap"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/registry/scheduling/priorityclass"
	"github.com/kapi-dev/kapi/internal/server"
)

// lookup returns the storage of group's resource path ("" for core).
func (cs *coreStorage) lookup(group, path string) rest.Storage {
	for _, g := range cs.groups {
		if g.Group == group {
			return g.Storage[g.Versions[0]][path]
		}
	}
	return nil
}

// addBootstrapHooks adds the post-start hooks that create what every
// cluster has: the system priority classes (the flow-control objects are
// addFlowControlHooks'), and the kubernetes service with its endpoints (kept by a
// controller, as kube-apiserver's bootstrap controller does).
// localRead, when not nil, is the storage hooks read in-process rather
// than through the loopback client (see inProcessLookup).
func addBootstrapHooks(s *server.GenericServer, c *Config, cs *coreStorage, ctrl *bootstrap.Controller, localRead func(group, resource string) rest.Storage, logger *slog.Logger) error {
	// Through the loopback client, as upstream: a fresh cluster has them
	// from the seed already (priorityclass_seed.go).
	if err := s.AddPostStartHook("scheduling/bootstrap-system-priority-classes", func(hc server.PostStartHookContext) error {
		client, err := schedulingv1client.NewForConfig(hc.LoopbackClientConfig)
		if err != nil {
			return err
		}
		// The watch cache answers whether they exist; only a missing one
		// costs a request.
		var getter rest.Getter
		if localRead != nil {
			getter, _ = localRead("scheduling.k8s.io", "priorityclasses").(rest.Getter)
		}
		exists := func(ctx context.Context, name string) bool {
			if getter == nil {
				return false
			}
			_, err := getter.Get(request.WithNamespace(ctx, ""), name, &metav1.GetOptions{ResourceVersion: "0"})
			return err == nil
		}
		return retry(hc.Context, func() error {
			return priorityclass.EnsureSystemPriorityClasses(hc.Context, exists, client.PriorityClasses())
		})
	}); err != nil {
		return err
	}

	// As upstream, the default ServiceCIDR exists before the server is
	// healthy (Service IPs are allocated from it), while the kubernetes
	// Service and its endpoints come after: upstream's controller writes
	// them once /readyz passes.
	cidrReady := make(chan struct{})
	if err := s.AddPostStartHook("start-kubernetes-service-cidr-controller", func(hc server.PostStartHookContext) error {
		if err := retry(hc.Context, func() error { return ctrl.EnsureServiceCIDR(hc.Context) }); err != nil {
			return err
		}
		close(cidrReady)
		return nil
	}); err != nil {
		return err
	}
	return s.AddPostStartHook("bootstrap-controller", func(hc server.PostStartHookContext) error {
		go func() {
			// After the other hook: both would create the ServiceCIDR.
			select {
			case <-cidrReady:
			case <-hc.Context.Done():
				return
			}
			// The kubernetes service lives in the default namespace, which
			// the system namespaces hook creates.
			err := retry(hc.Context, func() error {
				if err := cs.ensureSystemNamespaces(hc.Context); err != nil {
					return err
				}
				return ctrl.Ensure(hc.Context)
			})
			if err != nil && hc.Context.Err() == nil {
				logger.Error("bootstrap: creating the kubernetes service", "err", err)
			}
			ctrl.Run(hc.Context)
		}()
		return nil
	})
}

// newBootstrapController builds the controller of the kubernetes Service,
// its endpoints and the default ServiceCIDR over the core storage.
func newBootstrapController(c *Config, cs *coreStorage, logger *slog.Logger) (*bootstrap.Controller, error) {
	storage := func(path string) bootstrap.Storage {
		group, resource := "", path
		if path == "endpointslices" {
			group = "discovery.k8s.io"
		}
		if path == "servicecidrs" {
			group = "networking.k8s.io"
		}
		st, _ := cs.lookup(group, resource).(bootstrap.Storage)
		return st
	}
	cidrStatus, _ := cs.lookup("networking.k8s.io", "servicecidrs/status").(rest.Updater)
	ctrl, err := bootstrap.New(bootstrap.Config{
		Services:          storage("services"),
		Endpoints:         storage("endpoints"),
		EndpointSlices:    storage("endpointslices"),
		ServiceCIDRs:      storage("servicecidrs"),
		ServiceCIDRStatus: cidrStatus,
		ServiceCIDR:       c.ServiceClusterIPRange,
		AdvertiseAddress:  advertiseAddress(c),
		SecurePort:        c.SecurePort,
		Logger:            logger.With("controller", "bootstrap"),
	})
	if err != nil {
		return nil, fmt.Errorf("bootstrap controller: %w", err)
	}
	return ctrl, nil
}

// advertiseAddress is where clients reach this server: the configured
// address, else the bind address unless it is unspecified, else loopback.
func advertiseAddress(c *Config) net.IP {
	switch {
	case c.AdvertiseAddress != nil:
		return c.AdvertiseAddress
	case c.BindAddress != nil && !c.BindAddress.IsUnspecified():
		return c.BindAddress
	default:
		return net.IPv4(127, 0, 0, 1)
	}
}

// retry runs fn until it succeeds or ctx ends, as upstream's bootstrap
// hooks poll: storage may not answer in the first moments.
func retry(ctx context.Context, fn func() error) error {
	var err error
	for attempt := 0; attempt < 30; attempt++ {
		if err = fn(); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return err
}
