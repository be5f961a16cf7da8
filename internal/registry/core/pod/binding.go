package pod

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/core/validation"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// BindingREST serves POST pods/{name}/binding: the scheduler's write
// assigning a pod to a node.
type BindingREST struct {
	store *generic.Store
}

// LegacyBindingREST serves POST namespaces/{ns}/bindings, the older form
// of the same write, naming the pod in the Binding's metadata.
type LegacyBindingREST struct {
	binding *BindingREST
}

var (
	_ rest.NamedCreater = (*BindingREST)(nil)
	_ rest.Creater      = (*LegacyBindingREST)(nil)
	_ rest.Scoper       = (*LegacyBindingREST)(nil)
)

// New returns an empty Binding.
func (r *BindingREST) New() runtime.Object { return &corev1.Binding{} }

// Destroy does nothing: the pods storage owns the store.
func (r *BindingREST) Destroy() {}

// Create binds pod name to the Binding's target node. A pod already on a
// node, or being deleted, cannot be bound: 409 Conflict, as upstream.
func (r *BindingREST) Create(ctx context.Context, name string, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	binding, ok := obj.(*corev1.Binding)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a Binding object: %T", obj))
	}
	if name != binding.Name {
		return nil, apierrors.NewBadRequest("name in URL does not match name in Binding object")
	}
	if errs := validation.ValidatePodBinding(binding); len(errs) != 0 {
		return nil, apierrors.NewInvalid(corev1.SchemeGroupVersion.WithKind("Binding").GroupKind(), binding.Name, errs)
	}
	if createValidation != nil {
		if err := createValidation(ctx, binding.DeepCopyObject()); err != nil {
			return nil, err
		}
	}
	assign := podUpdate{update: func(pod *corev1.Pod) error {
		conflict := func(format string, args ...any) error {
			return apierrors.NewConflict(corev1.Resource("pods/binding"), name, fmt.Errorf(format, args...))
		}
		if pod.DeletionTimestamp != nil {
			return conflict("pod %s is being deleted, cannot be assigned to a host", pod.Name)
		}
		if pod.Spec.NodeName != "" {
			return conflict("pod %v is already assigned to node %q", pod.Name, pod.Spec.NodeName)
		}
		pod.Spec.NodeName = binding.Target.Name
		if len(binding.Annotations) > 0 && pod.Annotations == nil {
			pod.Annotations = map[string]string{}
		}
		for k, v := range binding.Annotations {
			pod.Annotations[k] = v
		}
		// Labels too, overwriting the pod's: the PodTopologyLabels
		// admission plugin puts the node's topology labels on the binding.
		if len(binding.Labels) > 0 && pod.Labels == nil {
			pod.Labels = map[string]string{}
		}
		for k, v := range binding.Labels {
			pod.Labels[k] = v
		}
		setPodCondition(&pod.Status, corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue})
		return nil
	}}
	updateOptions := &metav1.UpdateOptions{DryRun: options.DryRun}
	if _, _, err := r.store.Update(ctx, name, assign, rest.ValidateAllObjectFunc, rest.ValidateAllObjectUpdateFunc, false, updateOptions); err != nil {
		return nil, err
	}
	return &metav1.Status{Status: metav1.StatusSuccess}, nil
}

// New returns an empty Binding.
func (r *LegacyBindingREST) New() runtime.Object { return &corev1.Binding{} }

// Destroy does nothing: the pods storage owns the store.
func (r *LegacyBindingREST) Destroy() {}

// NamespaceScoped is true: bindings live in the pod's namespace.
func (r *LegacyBindingREST) NamespaceScoped() bool { return true }

// Create binds the pod the Binding names.
func (r *LegacyBindingREST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a Binding object: %T", obj))
	}
	return r.binding.Create(ctx, m.GetName(), obj, createValidation, options)
}

// bindingStrategy writes the pod the binding computed as it is: the
// node assignment is not a user's spec update.
type bindingStrategy struct {
	Strategy
}

// PrepareForUpdate changes nothing.
func (bindingStrategy) PrepareForUpdate(context.Context, runtime.Object, runtime.Object) {}

// ValidateUpdate has nothing to add to the common metadata checks.
func (bindingStrategy) ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList {
	return nil
}

// setPodCondition adds or replaces the condition of its type; the
// transition time moves only when the status changes.
func setPodCondition(status *corev1.PodStatus, c corev1.PodCondition) {
	c.LastTransitionTime = metav1.Now()
	for i, old := range status.Conditions {
		if old.Type != c.Type {
			continue
		}
		if old.Status == c.Status {
			c.LastTransitionTime = old.LastTransitionTime
		}
		status.Conditions[i] = c
		return
	}
	status.Conditions = append(status.Conditions, c)
}
