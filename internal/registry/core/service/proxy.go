package service

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// ProxyREST serves services/proxy. kapi has no data plane (no kube-proxy,
// no endpoints to dial), so every request is answered with 503.
type ProxyREST struct{}

var (
	_ rest.Getter       = (*ProxyREST)(nil)
	_ rest.NamedCreater = (*ProxyREST)(nil)
)

// New returns the options object of the proxy subresource.
func (*ProxyREST) New() runtime.Object { return &corev1.ServiceProxyOptions{} }

// Destroy does nothing.
func (*ProxyREST) Destroy() {}

// Get answers 503.
func (*ProxyREST) Get(_ context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	return nil, proxyUnavailable(name)
}

// Create answers 503.
func (*ProxyREST) Create(_ context.Context, name string, _ runtime.Object, _ rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	return nil, proxyUnavailable(name)
}

func proxyUnavailable(name string) error {
	return apierrors.NewServiceUnavailable("services/proxy of service \"" + name +
		"\" is unavailable: kapi has no service data plane (kube-proxy) to reach its endpoints")
}
