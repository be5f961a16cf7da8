// Package priority is the Priority admission plugin: a new pod gets the
// priority (and preemption policy) of its PriorityClass, or of the global
// default class, or 0; a pod naming a class that does not exist is
// refused; only one PriorityClass may be the global default.
package priority

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	schedulingv1listers "k8s.io/client-go/listers/scheduling/v1"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/admission/plugins/internal/podutil"
)

// PluginName is the name used by --enable-admission-plugins.
const PluginName = "Priority"

// DefaultPriorityWhenNoDefaultClassExists is a pod's priority when no
// class is the global default.
const DefaultPriorityWhenNoDefaultClassExists = 0

// Plugin is the Priority admission plugin.
type Plugin struct {
	lister schedulingv1listers.PriorityClassLister
	synced func() bool
}

var _ admission.Interface = (*Plugin)(nil)

// New returns the plugin over the shared informer's lister; synced (may be
// nil) tells whether it has filled.
func New(lister schedulingv1listers.PriorityClassLister, synced func() bool) *Plugin {
	return &Plugin{lister: lister, synced: synced}
}

// Admit resolves the priority of new pods and keeps it on updates.
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) error {
	if a.Subresource != "" || a.Resource.Group != "" || a.Resource.Resource != "pods" {
		return nil
	}
	switch a.Operation {
	case admission.Create, admission.Update:
	default:
		return nil
	}
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		return apierrors.NewBadRequest("resource was marked with kind Pod but was unable to be converted")
	}
	if a.Operation == admission.Update {
		// Priority is set once, at creation: an update that leaves it out
		// keeps it (validation refuses any other change).
		old, ok := a.OldObject.(*corev1.Pod)
		if !ok {
			return apierrors.NewBadRequest("resource was marked with kind Pod but was unable to be converted")
		}
		if pod.Spec.Priority == nil && old.Spec.Priority != nil {
			pod.Spec.Priority = old.Spec.Priority
		}
		if pod.Spec.PreemptionPolicy == nil && old.Spec.PreemptionPolicy != nil {
			pod.Spec.PreemptionPolicy = old.Spec.PreemptionPolicy
		}
		return nil
	}
	if !podutil.WaitReady(ctx, p.synced) {
		return podutil.NotReady(a)
	}
	return p.admitNewPod(a, pod)
}

func (p *Plugin) admitNewPod(a *admission.Attributes, pod *corev1.Pod) error {
	var priority int32
	var policy *corev1.PreemptionPolicy
	if pod.Spec.PriorityClassName == "" {
		def, err := p.defaultClass()
		if err != nil {
			return fmt.Errorf("failed to get default priority class: %v", err)
		}
		if def != nil {
			pod.Spec.PriorityClassName, priority, policy = def.Name, def.Value, def.PreemptionPolicy
		} else {
			lower := corev1.PreemptLowerPriority
			priority, policy = DefaultPriorityWhenNoDefaultClassExists, &lower
		}
	} else {
		pc, err := p.lister.Get(pod.Spec.PriorityClassName)
		if err != nil {
			if apierrors.IsNotFound(err) {
				return podutil.Forbidden(a, fmt.Errorf("no PriorityClass with name %v was found", pod.Spec.PriorityClassName))
			}
			return fmt.Errorf("failed to get PriorityClass with name %s: %v", pod.Spec.PriorityClassName, err)
		}
		priority, policy = pc.Value, pc.PreemptionPolicy
	}
	if pod.Spec.Priority != nil && *pod.Spec.Priority != priority {
		return podutil.Forbidden(a, fmt.Errorf("the integer value of priority (%d) must not be provided in pod spec; priority admission controller computed %d from the given PriorityClass name", *pod.Spec.Priority, priority))
	}
	pod.Spec.Priority = &priority
	if policy != nil {
		if pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy != *policy {
			return podutil.Forbidden(a, fmt.Errorf("the string value of PreemptionPolicy (%s) must not be provided in pod spec; priority admission controller computed %s from the given PriorityClass name", *pod.Spec.PreemptionPolicy, *policy))
		}
		v := *policy
		pod.Spec.PreemptionPolicy = &v
	}
	return nil
}

// Validate allows one global default PriorityClass.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	if a.Subresource != "" || a.Resource.Group != "scheduling.k8s.io" || a.Resource.Resource != "priorityclasses" {
		return nil
	}
	if a.Operation != admission.Create && a.Operation != admission.Update {
		return nil
	}
	pc, ok := a.Object.(*schedulingv1.PriorityClass)
	if !ok {
		return apierrors.NewBadRequest("resource was marked with kind PriorityClass but was unable to be converted")
	}
	if !pc.GlobalDefault {
		return nil
	}
	if !podutil.WaitReady(ctx, p.synced) {
		return podutil.NotReady(a)
	}
	def, err := p.defaultClass()
	if err != nil {
		return fmt.Errorf("failed to get default priority class: %v", err)
	}
	if def != nil && (a.Operation == admission.Create || def.Name != pc.Name) {
		return podutil.Forbidden(a, fmt.Errorf("PriorityClass %v is already marked as default. Only one default can exist", def.Name))
	}
	return nil
}

// defaultClass is the global default class; should a race have made two,
// the one of lower value.
func (p *Plugin) defaultClass() (*schedulingv1.PriorityClass, error) {
	all, err := p.lister.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	var def *schedulingv1.PriorityClass
	for _, pc := range all {
		if pc.GlobalDefault && (def == nil || pc.Value < def.Value) {
			def = pc
		}
	}
	return def, nil
}
