package pod

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Options are the inputs of the pod storage beyond the scheme and the
// storage backend.
type Options struct {
	// DisruptionBudgets gives pods/eviction the PodDisruptionBudgets of a
	// namespace and writes their status; build it with
	// NewDisruptionBudgets over the storage of "poddisruptionbudgets" and
	// "poddisruptionbudgets/status". Nil means no budget ever protects a
	// pod: every eviction is allowed.
	DisruptionBudgets DisruptionBudgets
}

// NewStorage builds the storage of pods and their subresources, keyed by
// the path they are served at: "pods", "pods/status", "pods/binding",
// "pods/eviction", "pods/ephemeralcontainers", "pods/resize", "pods/log",
// "pods/exec", "pods/attach", "pods/portforward", "pods/proxy", and the
// legacy top-level "bindings".
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter, opts Options) (map[string]rest.Storage, error) {
	strategy := NewStrategy(scheme)
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &corev1.Pod{} },
		NewListFunc:    func() runtime.Object { return &corev1.PodList{} },
		Resource:       corev1.Resource("pods"),
		Singular:       corev1.Resource("pod"),
		Strategy:       strategy,
		TableConvertor: Table(),
		AttrFunc:       GetAttrs,
		ShortNames:     []string{"po"},
		Categories:     []string{"all"},
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	store.ReturnDeletedObject = true
	statusStore := *store
	statusStore.UpdateStrategy = StatusStrategy{strategy}
	binding := &BindingREST{store: withUpdateStrategy(store, bindingStrategy{strategy})}
	return map[string]rest.Storage{
		"pods":                     store,
		"pods/status":              generic.NewStatusREST(store, StatusStrategy{strategy}),
		"pods/binding":             binding,
		"bindings":                 &LegacyBindingREST{binding: binding},
		"pods/eviction":            &EvictionREST{store: store, statusStore: &statusStore, budgets: opts.DisruptionBudgets},
		"pods/ephemeralcontainers": generic.NewStatusREST(store, EphemeralContainersStrategy{strategy}),
		"pods/resize":              generic.NewStatusREST(store, ResizeStrategy{strategy}),
		"pods/log":                 &LogREST{store: store},
		"pods/exec":                newConnectREST(store, &corev1.PodExecOptions{}, streamMethods),
		"pods/attach":              newConnectREST(store, &corev1.PodAttachOptions{}, streamMethods),
		"pods/portforward":         newConnectREST(store, &corev1.PodPortForwardOptions{}, streamMethods),
		"pods/proxy":               newConnectREST(store, &corev1.PodProxyOptions{}, proxyMethods),
	}, nil
}

// withUpdateStrategy is a copy of store whose updates go through
// strategy: a subresource over the same objects.
func withUpdateStrategy(store *generic.Store, strategy rest.RESTUpdateStrategy) *generic.Store {
	s := *store
	s.UpdateStrategy = strategy
	return &s
}

// podUpdate is an UpdatedObjectInfo computing the new pod from the
// current one inside the store's guaranteed update, so it retries on
// conflicts against fresh data.
type podUpdate struct {
	preconditions *metav1.Preconditions
	update        func(pod *corev1.Pod) error
}

func (u podUpdate) Preconditions() *metav1.Preconditions { return u.preconditions }

func (u podUpdate) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	pod := old.(*corev1.Pod).DeepCopy()
	if err := u.update(pod); err != nil {
		return nil, err
	}
	return pod, nil
}
