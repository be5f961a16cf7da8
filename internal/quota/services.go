package quota

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/admission"
	"k8s.io/apimachinery/pkg/selection"
)

var serviceResources = []corev1.ResourceName{
	CountResourceName(schema.GroupResource{Resource: "services"}),
	corev1.ResourceServices, corev1.ResourceServicesNodePorts, corev1.ResourceServicesLoadBalancers,
}

// serviceEvaluator measures services: counts, node ports, load balancers.
type serviceEvaluator struct{}

// NewServiceEvaluator measures services.
func NewServiceEvaluator() Evaluator { return serviceEvaluator{} }

func (serviceEvaluator) GroupResource() schema.GroupResource {
	return schema.GroupResource{Resource: "services"}
}

// Handles creates and updates: a service's type may change.
func (serviceEvaluator) Handles(op admission.Operation, _ string, _, _ runtime.Object) bool {
	return op == admission.Create || op == admission.Update
}

func (serviceEvaluator) MatchingResources(names []corev1.ResourceName) []corev1.ResourceName {
	return Intersection(names, serviceResources)
}

func (serviceEvaluator) MatchesScope(corev1.ScopedResourceSelectorRequirement, runtime.Object) (bool, error) {
	return false, nil
}

func (serviceEvaluator) Constraints([]corev1.ResourceName, runtime.Object) error { return nil }

func (serviceEvaluator) Usage(obj runtime.Object) (corev1.ResourceList, error) {
	svc, ok := obj.(*corev1.Service)
	if !ok {
		return nil, fmt.Errorf("expect *v1.Service, got %T", obj)
	}
	one := *resource.NewQuantity(1, resource.DecimalSI)
	ports := *resource.NewQuantity(int64(len(svc.Spec.Ports)), resource.DecimalSI)
	out := corev1.ResourceList{
		serviceResources[0]:                  one,
		corev1.ResourceServices:              one,
		corev1.ResourceServicesLoadBalancers: {Format: resource.DecimalSI},
		corev1.ResourceServicesNodePorts:     {Format: resource.DecimalSI},
	}
	switch svc.Spec.Type {
	case corev1.ServiceTypeNodePort:
		out[corev1.ResourceServicesNodePorts] = ports
	case corev1.ServiceTypeLoadBalancer:
		out[corev1.ResourceServicesNodePorts] = ports
		out[corev1.ResourceServicesLoadBalancers] = one
	}
	return out, nil
}

// QuotaServiceType is the type of a service as quota counts it:
// NodePort, LoadBalancer or nothing.
func QuotaServiceType(svc *corev1.Service) corev1.ServiceType {
	switch svc.Spec.Type {
	case corev1.ServiceTypeNodePort, corev1.ServiceTypeLoadBalancer:
		return svc.Spec.Type
	}
	return ""
}

// selectorMatches evaluates a scope selector over the values an object
// has for the scope (its priority class, its volume attributes classes):
// In and Exists need one value to match, NotIn and DoesNotExist all.
func selectorMatches(sel corev1.ScopedResourceSelectorRequirement, values []string) (bool, error) {
	var op selection.Operator
	switch sel.Operator {
	case corev1.ScopeSelectorOpIn:
		op = selection.In
	case corev1.ScopeSelectorOpNotIn:
		op = selection.NotIn
	case corev1.ScopeSelectorOpExists:
		op = selection.Exists
	case corev1.ScopeSelectorOpDoesNotExist:
		op = selection.DoesNotExist
	default:
		return false, fmt.Errorf("failed to parse and convert selector: %q is not a valid scope selector operator", sel.Operator)
	}
	key := string(sel.ScopeName)
	req, err := labels.NewRequirement(key, op, sel.Values)
	if err != nil {
		return false, fmt.Errorf("failed to parse and convert selector: %v", err)
	}
	if len(values) == 0 {
		return req.Matches(labels.Set{}), nil
	}
	all := op == selection.NotIn || op == selection.DoesNotExist
	for _, v := range values {
		m := req.Matches(labels.Set{key: v})
		if all && !m {
			return false, nil
		}
		if !all && m {
			return true, nil
		}
	}
	return all, nil
}
