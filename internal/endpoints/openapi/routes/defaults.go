package routes

import (
	"reflect"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// kapi's kubelet-backed subresources answer 503 without reading their
// options, so their storage does not declare the option types upstream's
// does. The documents still describe the options upstream accepts, so
// clients generated from them stay the same: these are the defaults
// when a Resource leaves its options unset.

// connectOptions are the option types of upstream's connect
// subresources, by the kind they announce (which is the options kind).
var connectOptions = func() map[schema.GroupVersionKind]reflect.Type {
	m := map[schema.GroupVersionKind]reflect.Type{}
	for _, t := range []reflect.Type{
		reflect.TypeFor[corev1.PodAttachOptions](),
		reflect.TypeFor[corev1.PodExecOptions](),
		reflect.TypeFor[corev1.PodPortForwardOptions](),
		reflect.TypeFor[corev1.PodProxyOptions](),
		reflect.TypeFor[corev1.NodeProxyOptions](),
		reflect.TypeFor[corev1.ServiceProxyOptions](),
	} {
		m[corev1.SchemeGroupVersion.WithKind(t.Name())] = t
	}
	return m
}()

// podLog is pods/log of the core group: a GET with PodLogOptions that
// answers plain text.
var (
	podLogOptions  = reflect.TypeFor[corev1.PodLogOptions]()
	podLogProduces = []string{"text/plain"}
)

// withDefaults returns r with upstream's options filled in where r
// leaves them unset.
func withDefaults(r Resource) Resource {
	_, sub, _ := cutSub(r.APIResource.Name)
	if len(r.ConnectMethods) > 0 {
		if r.ConnectOptions == nil {
			r.ConnectOptions = connectOptions[r.Kind]
		}
		if sub == "proxy" {
			r.ConnectSubpath = true
		}
	}
	if r.GroupVersion == corev1.SchemeGroupVersion && r.APIResource.Name == "pods/log" {
		if r.GetOptions == nil {
			r.GetOptions = podLogOptions
		}
		if r.GetProduces == nil {
			r.GetProduces = podLogProduces
		}
	}
	return r
}
