package pod

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

// The kubelet-backed subresources (log, exec, attach, portforward, proxy)
// stream from the node a pod runs on. kapi runs no kubelet, so each
// answers 503 Service Unavailable for an existing pod (404 for a missing
// one), with the verbs upstream serves them under. Upstream serves exec,
// attach, portforward and proxy as "connect" storage (an HTTP upgrade);
// kapi's handlers have no connect verb, so GET is served by a Getter and
// POST by a NamedCreater.

// noKubelet is the error of every kubelet-backed request for pod name.
func noKubelet(name string) error {
	return apierrors.NewServiceUnavailable(fmt.Sprintf(
		"pods %q: no kubelet is running for this control plane (kapi stores pods but does not run them)", name))
}

// LogREST serves GET pods/{name}/log.
type LogREST struct {
	store *generic.Store
}

var _ rest.Getter = (*LogREST)(nil)

// New returns an empty pod: logs are a read of the pod.
func (r *LogREST) New() runtime.Object { return &corev1.Pod{} }

// Destroy does nothing: the pods storage owns the store.
func (r *LogREST) Destroy() {}

// Get answers 503 for an existing pod.
func (r *LogREST) Get(ctx context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	return nil, checkPod(ctx, r.store, name)
}

// streamREST serves GET and POST of exec, attach and portforward.
type streamREST struct {
	store   *generic.Store
	options runtime.Object
}

var (
	_ rest.Getter       = (*streamREST)(nil)
	_ rest.NamedCreater = (*streamREST)(nil)
)

func newStreamREST(store *generic.Store, options runtime.Object) *streamREST {
	return &streamREST{store: store, options: options}
}

// New returns the subresource's options kind (PodExecOptions, ...).
func (r *streamREST) New() runtime.Object { return r.options.DeepCopyObject() }

// Destroy does nothing: the pods storage owns the store.
func (r *streamREST) Destroy() {}

// Get answers 503 for an existing pod.
func (r *streamREST) Get(ctx context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	return nil, checkPod(ctx, r.store, name)
}

// Create answers 503 for an existing pod.
func (r *streamREST) Create(ctx context.Context, name string, _ runtime.Object, _ rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	return nil, checkPod(ctx, r.store, name)
}

// ProxyREST serves pods/{name}/proxy, which upstream accepts for GET,
// POST, PUT, PATCH and DELETE.
type ProxyREST struct {
	*streamREST
}

var (
	_ rest.Patcher         = (*ProxyREST)(nil)
	_ rest.GracefulDeleter = (*ProxyREST)(nil)
)

// Update answers 503 for an existing pod.
func (r *ProxyREST) Update(ctx context.Context, name string, _ rest.UpdatedObjectInfo, _ rest.ValidateObjectFunc, _ rest.ValidateObjectUpdateFunc, _ bool, _ *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return nil, false, checkPod(ctx, r.store, name)
}

// Delete answers 503 for an existing pod.
func (r *ProxyREST) Delete(ctx context.Context, name string, _ rest.ValidateObjectFunc, _ *metav1.DeleteOptions) (runtime.Object, bool, error) {
	return nil, false, checkPod(ctx, r.store, name)
}

// checkPod returns the pod's NotFound, or noKubelet.
func checkPod(ctx context.Context, store *generic.Store, name string) error {
	if _, err := store.Get(ctx, name, &metav1.GetOptions{}); err != nil {
		return err
	}
	return noKubelet(name)
}
