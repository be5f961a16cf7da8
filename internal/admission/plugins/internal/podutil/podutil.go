// Package podutil holds what the pod admission plugins share: upstream's
// Forbidden error for an admission request and the walk over a pod's
// containers.
package podutil

import (
	"context"
	"errors"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"

	"github.com/kapi-dev/kapi/internal/admission"
)

// Forbidden is upstream's admission.NewForbidden: a 403 naming the
// resource and the object (its generateName, or "Unknown", before a name
// is generated). A Forbidden error is returned as it is.
func Forbidden(a *admission.Attributes, err error) error {
	if apierrors.IsForbidden(err) {
		return err
	}
	return apierrors.NewForbidden(a.Resource.GroupResource(), ObjectName(a), err)
}

// ObjectName is the name upstream's admission errors use for the object
// of a request.
func ObjectName(a *admission.Attributes) string {
	if a.Name != "" {
		return a.Name
	}
	if a.Object != nil {
		m, err := meta.Accessor(a.Object)
		switch {
		case err != nil:
			return "Unknown/errorGettingName"
		case m.GetName() != "":
			return m.GetName()
		case m.GetGenerateName() != "":
			return m.GetGenerateName()
		}
	}
	return "Unknown"
}

// IsPod tells whether a is a write of a pod itself (no subresource) or of
// one of the listed subresources, with a Pod as its object.
func IsPod(a *admission.Attributes, subresources ...string) (*corev1.Pod, bool) {
	if a.Resource.Group != "" || a.Resource.Resource != "pods" {
		return nil, false
	}
	if a.Subresource != "" {
		ok := false
		for _, s := range subresources {
			ok = ok || s == a.Subresource
		}
		if !ok {
			return nil, false
		}
	}
	pod, ok := a.Object.(*corev1.Pod)
	return pod, ok && pod != nil
}

// Containers lists pointers to the init and regular containers of spec, in
// that order (the containers that exist at creation).
func Containers(spec *corev1.PodSpec) []*corev1.Container {
	out := make([]*corev1.Container, 0, len(spec.InitContainers)+len(spec.Containers))
	for i := range spec.InitContainers {
		out = append(out, &spec.InitContainers[i])
	}
	for i := range spec.Containers {
		out = append(out, &spec.Containers[i])
	}
	return out
}

// readyTimeout is how long a request waits for a plugin's informers to
// sync before it is refused, as upstream's admission handlers wait.
const readyTimeout = 10 * time.Second

// WaitReady waits (bounded by ctx and readyTimeout) until synced reports
// true; a nil synced is always ready. On false the caller refuses with
// NotReady.
func WaitReady(ctx context.Context, synced func() bool) bool {
	if synced == nil || synced() {
		return true
	}
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	return cache.WaitForCacheSync(ctx.Done(), synced)
}

// NotReady is upstream's answer while a plugin's caches fill.
func NotReady(a *admission.Attributes) error {
	return Forbidden(a, errors.New("not yet ready to handle request"))
}
