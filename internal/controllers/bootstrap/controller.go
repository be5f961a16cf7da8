// Package bootstrap keeps the objects that tell clients inside the cluster
// where the API server is: the default/kubernetes Service (the first IP
// of the service range, port 443), its Endpoints and EndpointSlice (the
// advertise address and secure port), and the default ServiceCIDR named
// kubernetes. kube-apiserver's bootstrap and default-service-CIDR
// controllers do the same.
package bootstrap

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Names upstream uses.
const (
	// KubernetesName names the service, endpoints, slice and ServiceCIDR.
	KubernetesName = "kubernetes"
	// Namespace is where the kubernetes service lives.
	Namespace = metav1.NamespaceDefault
	// PortName is the name of the service and endpoint port.
	PortName = "https"
	// DefaultInterval is how often Run reconciles, as upstream.
	DefaultInterval = 10 * time.Second
	// DefaultPublicPort is the service port of the kubernetes service.
	DefaultPublicPort = 443
)

// Storage is what the controller needs of each resource's REST storage.
type Storage interface {
	rest.Getter
	rest.Creater
	rest.Updater
}

// Config holds the controller's inputs.
type Config struct {
	// Services, Endpoints, EndpointSlices and ServiceCIDRs are the REST
	// storages of those resources; ServiceCIDRStatus is
	// servicecidrs/status.
	Services, Endpoints, EndpointSlices, ServiceCIDRs Storage
	ServiceCIDRStatus                                 rest.Updater
	// ServiceCIDR is the service IP range; the kubernetes service gets
	// its first address.
	ServiceCIDR netip.Prefix
	// AdvertiseAddress is the address clients reach the server at.
	AdvertiseAddress net.IP
	// SecurePort is the server's port: the endpoints' port and the
	// service's targetPort.
	SecurePort int
	// PublicPort is the service port; zero means 443.
	PublicPort int
	// Interval is Run's period; zero means DefaultInterval.
	Interval time.Duration
	// Logger receives reconcile errors; nil discards.
	Logger *slog.Logger
}

// Controller reconciles the kubernetes service, endpoints, slice and
// default ServiceCIDR.
type Controller struct {
	cfg       Config
	serviceIP netip.Addr
	address   netip.Addr
}

// New checks cfg and returns a controller.
func New(cfg Config) (*Controller, error) {
	if cfg.Services == nil || cfg.Endpoints == nil || cfg.EndpointSlices == nil || cfg.ServiceCIDRs == nil || cfg.ServiceCIDRStatus == nil {
		return nil, errors.New("bootstrap controller needs the services, endpoints, endpointslices, servicecidrs and servicecidrs/status storage")
	}
	if !cfg.ServiceCIDR.IsValid() {
		return nil, errors.New("bootstrap controller needs the service CIDR")
	}
	address, ok := netip.AddrFromSlice(cfg.AdvertiseAddress)
	if !ok {
		return nil, fmt.Errorf("invalid advertise address %v", cfg.AdvertiseAddress)
	}
	if cfg.SecurePort < 1 || cfg.SecurePort > 65535 {
		return nil, fmt.Errorf("invalid secure port %d", cfg.SecurePort)
	}
	if cfg.PublicPort == 0 {
		cfg.PublicPort = DefaultPublicPort
	}
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultInterval
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Controller{cfg: cfg, serviceIP: cfg.ServiceCIDR.Masked().Addr().Next(), address: address.Unmap()}, nil
}

// ServiceIP is the kubernetes service's cluster IP.
func (c *Controller) ServiceIP() netip.Addr { return c.serviceIP }

// Run reconciles at once and then every Interval until ctx ends. Errors
// are logged and retried on the next tick.
func (c *Controller) Run(ctx context.Context) {
	ticker := time.NewTicker(c.cfg.Interval)
	defer ticker.Stop()
	for {
		if err := c.Ensure(ctx); err != nil && ctx.Err() == nil {
			c.cfg.Logger.Error("bootstrap: reconciling the kubernetes service", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// EnsureServiceCIDR creates or repairs, once, the default ServiceCIDR,
// which must exist before the server is healthy: Service IPs are
// allocated from it.
func (c *Controller) EnsureServiceCIDR(ctx context.Context) error {
	return c.ensureServiceCIDR(ctx)
}

// CreateServiceCIDR is EnsureServiceCIDR on storage known to be fresh
// (the bootstrap seed's): it does not read the ServiceCIDR first. Before
// the watch caches start that read goes to etcd, where a linearizable
// read waits for the seed's large commits to be applied.
func (c *Controller) CreateServiceCIDR(ctx context.Context) error {
	return c.writeServiceCIDR(ctx, false)
}

// Ensure creates or repairs, once, the default ServiceCIDR, the
// kubernetes service, its endpoints and its endpoint slice. The
// ServiceCIDR comes first: the service's IP is allocated from it.
func (c *Controller) Ensure(ctx context.Context) error {
	steps := []struct {
		name string
		fn   func(context.Context) error
	}{
		{"servicecidr", c.ensureServiceCIDR},
		{"service", c.ensureService},
		{"endpoints", c.ensureEndpoints},
		{"endpointslice", c.ensureEndpointSlice},
	}
	if c.address.IsLoopback() {
		// Endpoints may not point at loopback (validation refuses it, as
		// upstream); a server bound to loopback publishes the service
		// only: nothing outside this machine could reach it anyway.
		steps = steps[:2]
	}
	var errs []error
	for _, s := range steps {
		if err := s.fn(ctx); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", s.name, err))
		}
	}
	return errors.Join(errs...)
}

// reconcile makes the stored object named name agree with want: it is
// created when missing, and replaced (keeping the stored metadata) when
// differs says the stored one is not right.
func reconcile[T runtime.Object](ctx context.Context, s Storage, name string, want T, differs func(stored T) bool, apply func(stored, want T)) error {
	obj, err := s.Get(ctx, name, &metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		_, err = s.Create(ctx, want, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	}
	if err != nil {
		return err
	}
	stored, ok := obj.(T)
	if !ok {
		return fmt.Errorf("got %T", obj)
	}
	if !differs(stored) {
		return nil
	}
	updated := stored.DeepCopyObject().(T)
	apply(updated, want)
	_, _, err = s.Update(ctx, name, rest.DefaultUpdatedObjectInfo(updated), rest.ValidateAllObjectFunc, rest.ValidateAllObjectUpdateFunc, false, &metav1.UpdateOptions{})
	return err
}

func namespaced(ctx context.Context) context.Context { return request.WithNamespace(ctx, Namespace) }

func cluster(ctx context.Context) context.Context { return request.WithNamespace(ctx, "") }

// sameSemantic compares with quantities and empty-vs-nil treated alike.
func sameSemantic(a, b any) bool { return equality.Semantic.DeepEqual(a, b) }
