// Package service is the REST storage of core/v1 services: the strategy,
// the allocation of cluster IPs (as IPAddress objects, package
// ipallocator) and node ports (package portallocator) around the generic
// store, services/status and services/proxy.
package service

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	kapicorev1 "github.com/kapi-dev/kapi/internal/apis/core/v1"
	"github.com/kapi-dev/kapi/internal/apis/core/validation"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how services are created and updated through the main
// resource. As upstream, services have no metadata.generation: only
// status is reset on create and kept on update.
type Strategy struct {
	rest.DefaultStrategy
}

// StatusStrategy is the update strategy of services/status: the stored
// spec is kept, the load balancer status is taken.
type StatusStrategy struct {
	Strategy
}

var (
	_ rest.RESTCreateStrategy  = Strategy{}
	_ rest.RESTUpdateStrategy  = Strategy{}
	_ rest.RESTDeleteStrategy  = Strategy{}
	_ rest.ResetFieldsStrategy = Strategy{}
	_ rest.RESTUpdateStrategy  = StatusStrategy{}
	_ rest.ResetFieldsStrategy = StatusStrategy{}
)

// NewStrategy returns the service strategy; typer is the server's scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.DefaultStrategy{ObjectTyper: typer}}
}

// PrepareForCreate clears status and puts clusterIP and clusterIPs in
// step.
func (Strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	svc := obj.(*corev1.Service)
	svc.Status = corev1.ServiceStatus{}
	normalizeClusterIPs(svc, nil)
}

// PrepareForUpdate keeps the stored status and drops the fields the new
// type no longer uses.
func (Strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	svc, oldSvc := obj.(*corev1.Service), old.(*corev1.Service)
	svc.Status = oldSvc.Status
	normalizeClusterIPs(svc, oldSvc)
	dropTypeDependentFields(svc, oldSvc)
}

// GetResetFields: writes of the main resource ignore status.
func (Strategy) GetResetFields() map[string]struct{} {
	return map[string]struct{}{"status": {}}
}

// Validate checks a new service.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateService(obj.(*corev1.Service))
}

// ValidateUpdate checks the new service, the metadata changes and that
// allocated cluster IPs stay.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateServiceUpdate(obj.(*corev1.Service), old.(*corev1.Service))
}

// PrepareForUpdate keeps the stored spec.
func (StatusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	svc, oldSvc := obj.(*corev1.Service), old.(*corev1.Service)
	svc.Spec = oldSvc.Spec
	// Status writers may leave ipMode out; defaulting fills it for load
	// balancers as on the main resource.
	kapicorev1.SetDefaultsService(svc)
}

// ValidateUpdate checks the metadata changes and the load balancer
// status.
func (StatusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateServiceStatusUpdate(obj.(*corev1.Service), old.(*corev1.Service))
}

// GetResetFields: status writes ignore spec.
func (StatusStrategy) GetResetFields() map[string]struct{} {
	return map[string]struct{}{"spec": {}}
}

// GetAttrs returns a service's labels and selectable fields: the metadata
// ones, spec.clusterIP and spec.type, as upstream.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	svc, ok := obj.(*corev1.Service)
	if !ok {
		return nil, nil, fmt.Errorf("not a service: %T", obj)
	}
	ls, fs, err := generic.DefaultNamespaceScopedAttr(svc)
	if err != nil {
		return nil, nil, err
	}
	fs["spec.clusterIP"] = svc.Spec.ClusterIP
	fs["spec.type"] = string(svc.Spec.Type)
	return ls, fs, nil
}

// normalizeClusterIPs puts the singular clusterIP and the plural
// clusterIPs in step: a client that only knows one of them (or changes
// only one) still writes a consistent service. old is nil on create.
func normalizeClusterIPs(svc, old *corev1.Service) {
	spec := &svc.Spec
	if old != nil && spec.ClusterIP == old.Spec.ClusterIP && len(old.Spec.ClusterIPs) > 0 &&
		len(spec.ClusterIPs) > 0 && spec.ClusterIPs[0] != old.Spec.ClusterIPs[0] {
		// Only the plural changed: the singular follows.
		spec.ClusterIP = spec.ClusterIPs[0]
		return
	}
	if old != nil && spec.ClusterIP != old.Spec.ClusterIP && len(spec.ClusterIPs) > 0 &&
		len(old.Spec.ClusterIPs) > 0 && spec.ClusterIPs[0] == old.Spec.ClusterIPs[0] {
		// Only the singular changed: the plural follows (or is cleared
		// with it).
		if spec.ClusterIP == "" {
			spec.ClusterIPs = nil
		} else {
			spec.ClusterIPs = []string{spec.ClusterIP}
		}
		return
	}
	switch {
	case spec.ClusterIP == "" && len(spec.ClusterIPs) > 0:
		spec.ClusterIP = spec.ClusterIPs[0]
	case spec.ClusterIP != "" && len(spec.ClusterIPs) == 0:
		spec.ClusterIPs = []string{spec.ClusterIP}
	}
}

// needsClusterIP: every type but ExternalName has a cluster IP, unless
// headless.
func needsClusterIP(svc *corev1.Service) bool {
	return svc.Spec.Type != corev1.ServiceTypeExternalName && svc.Spec.ClusterIP != corev1.ClusterIPNone
}

// usesNodePorts: NodePort and LoadBalancer services may hold node ports.
func usesNodePorts(svc *corev1.Service) bool {
	return svc.Spec.Type == corev1.ServiceTypeNodePort || svc.Spec.Type == corev1.ServiceTypeLoadBalancer
}

// allocatesNodePorts: the node ports a user leaves out are allocated for
// NodePort services and for load balancers unless they opted out.
func allocatesNodePorts(svc *corev1.Service) bool {
	switch svc.Spec.Type {
	case corev1.ServiceTypeNodePort:
		return true
	case corev1.ServiceTypeLoadBalancer:
		return svc.Spec.AllocateLoadBalancerNodePorts == nil || *svc.Spec.AllocateLoadBalancerNodePorts
	}
	return false
}

// needsHealthCheckNodePort: load balancers that keep traffic local.
func needsHealthCheckNodePort(svc *corev1.Service) bool {
	return svc.Spec.Type == corev1.ServiceTypeLoadBalancer && svc.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal
}

// patchAllocatedValues copies into an update what the server allocated
// and the client left out (a PUT of the original manifest), as long as
// the service still needs it: clusterIP(s), node ports matched by port
// name, and the health check node port.
func patchAllocatedValues(svc, old *corev1.Service) {
	if needsClusterIP(old) && needsClusterIP(svc) && svc.Spec.ClusterIP == "" && len(svc.Spec.ClusterIPs) == 0 {
		svc.Spec.ClusterIP = old.Spec.ClusterIP
		svc.Spec.ClusterIPs = old.Spec.ClusterIPs
		if svc.Spec.IPFamilyPolicy == nil {
			svc.Spec.IPFamilyPolicy = old.Spec.IPFamilyPolicy
		}
		if len(svc.Spec.IPFamilies) == 0 {
			svc.Spec.IPFamilies = old.Spec.IPFamilies
		}
	}
	if usesNodePorts(old) && usesNodePorts(svc) {
		inNew := map[int32]bool{}
		for _, p := range svc.Spec.Ports {
			inNew[p.NodePort] = true
		}
		byName := map[string]int32{}
		for _, p := range old.Spec.Ports {
			byName[p.Name] = p.NodePort
		}
		for i := range svc.Spec.Ports {
			p := &svc.Spec.Ports[i]
			if p.NodePort == 0 && !inNew[byName[p.Name]] {
				p.NodePort = byName[p.Name]
				inNew[p.NodePort] = true
			}
		}
	}
	if needsHealthCheckNodePort(old) && needsHealthCheckNodePort(svc) && svc.Spec.HealthCheckNodePort == 0 {
		svc.Spec.HealthCheckNodePort = old.Spec.HealthCheckNodePort
	}
}

// dropTypeDependentFields clears, when the type changes, the allocated
// values the new type does not use, if the client left them as they were.
func dropTypeDependentFields(svc, old *corev1.Service) {
	if needsClusterIP(old) && !needsClusterIP(svc) && svc.Spec.Type == corev1.ServiceTypeExternalName {
		if slices.Equal(svc.Spec.ClusterIPs, old.Spec.ClusterIPs) {
			svc.Spec.ClusterIP = ""
			svc.Spec.ClusterIPs = nil
		}
		if slices.Equal(svc.Spec.IPFamilies, old.Spec.IPFamilies) {
			svc.Spec.IPFamilies = nil
		}
		if svc.Spec.IPFamilyPolicy != nil && old.Spec.IPFamilyPolicy != nil && *svc.Spec.IPFamilyPolicy == *old.Spec.IPFamilyPolicy {
			svc.Spec.IPFamilyPolicy = nil
		}
	}
	if usesNodePorts(old) && !usesNodePorts(svc) {
		oldPorts := map[int32]bool{}
		for _, p := range old.Spec.Ports {
			oldPorts[p.NodePort] = true
		}
		for i := range svc.Spec.Ports {
			if oldPorts[svc.Spec.Ports[i].NodePort] {
				svc.Spec.Ports[i].NodePort = 0
			}
		}
	}
	if needsHealthCheckNodePort(old) && !needsHealthCheckNodePort(svc) && svc.Spec.HealthCheckNodePort == old.Spec.HealthCheckNodePort {
		svc.Spec.HealthCheckNodePort = 0
	}
	if svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
		if old.Spec.Type == corev1.ServiceTypeLoadBalancer {
			svc.Spec.AllocateLoadBalancerNodePorts = nil
			svc.Spec.LoadBalancerClass = nil
		}
	}
	if !kapicorev1.ExternallyAccessible(svc) {
		svc.Spec.ExternalTrafficPolicy = ""
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName && old.Spec.Type != corev1.ServiceTypeExternalName &&
		svc.Spec.InternalTrafficPolicy != nil && old.Spec.InternalTrafficPolicy != nil && *svc.Spec.InternalTrafficPolicy == *old.Spec.InternalTrafficPolicy {
		svc.Spec.InternalTrafficPolicy = nil
	}
}
