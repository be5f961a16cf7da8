package node

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage builds the storage of nodes: "nodes", "nodes/status" and
// "nodes/proxy".
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	strategy := NewStrategy(scheme)
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &corev1.Node{} },
		NewListFunc:    func() runtime.Object { return &corev1.NodeList{} },
		Resource:       corev1.Resource("nodes"),
		Singular:       corev1.Resource("node"),
		Strategy:       strategy,
		TableConvertor: Table(),
		AttrFunc:       GetAttrs,
		ShortNames:     []string{"no"},
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{
		"nodes":        store,
		"nodes/status": generic.NewStatusREST(store, StatusStrategy{strategy}),
		"nodes/proxy":  ProxyREST{},
	}, nil
}

// ProxyREST serves nodes/proxy. Upstream proxies to the node's kubelet;
// kapi has none, so every request answers 503 with a Status naming the
// node.
type ProxyREST struct{}

var _ rest.Getter = ProxyREST{}

// New returns the options kind of the subresource, as upstream announces.
func (ProxyREST) New() runtime.Object { return &corev1.NodeProxyOptions{} }

// Destroy does nothing.
func (ProxyREST) Destroy() {}

// Get answers 503: there is no kubelet to proxy to.
func (ProxyREST) Get(_ context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	return nil, apierrors.NewServiceUnavailable(fmt.Sprintf("no kubelet to proxy to: kapi runs no kubelet for node %q", name))
}
