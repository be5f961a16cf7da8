package controlplane

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/informers/internalinterfaces"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/kapi-dev/kapi/internal/endpoints/inprocess"
	registryrest "github.com/kapi-dev/kapi/internal/registry/rest"
)

// inProcessLookup is lookup when the server reads its own storage
// in-process (local is set: no audit policy asks to see those reads as
// requests), nil otherwise.
func inProcessLookup(local *inprocess.Resources, lookup func(group, resource string) registryrest.Storage) func(group, resource string) registryrest.Storage {
	if local == nil {
		return nil
	}
	return lookup
}

// inProcessInformer is a client-go factory's NewInformerFunc (C is the
// factory's clientset type) for an informer of obj's kind fed in-process
// (internal/endpoints/inprocess) rather than over the loopback client.
func inProcessInformer[C any](local *inprocess.Resources, obj runtime.Object, namespace string, tweak func(*metav1.ListOptions)) func(C, time.Duration) cache.SharedIndexInformer {
	return func(_ C, resync time.Duration) cache.SharedIndexInformer {
		return local.NewInformer(obj, namespace, tweak, resync)
	}
}

// informerRegistrar is what every client-go informer factory has: the
// informer of a type is made once, by the first newFunc it is given.
type informerRegistrar[F any] interface {
	InformerFor(obj runtime.Object, newFunc F) cache.SharedIndexInformer
}

// preferInProcess makes factory f build its informers of objs in-process:
// called before anything asks f for them, it registers them first. C is
// f's clientset type; F its NewInformerFunc.
func preferInProcess[C any, F ~func(C, time.Duration) cache.SharedIndexInformer](f informerRegistrar[F], local *inprocess.Resources, namespace string, tweak func(*metav1.ListOptions), objs ...runtime.Object) {
	if local == nil {
		return
	}
	for _, obj := range objs {
		if local.Serves(obj) {
			f.InformerFor(obj, F(inProcessInformer[C](local, obj, namespace, tweak)))
		}
	}
}

// preferInProcessTyped is preferInProcess for client-go's own factory.
func preferInProcessTyped(f informers.SharedInformerFactory, local *inprocess.Resources, namespace string, tweak func(*metav1.ListOptions), objs ...runtime.Object) {
	preferInProcess[kubernetes.Interface, internalinterfaces.NewInformerFunc](f, local, namespace, tweak, objs...)
}
