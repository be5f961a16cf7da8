package bootstrap

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	kapicorev1 "github.com/kapi-dev/kapi/internal/apis/core/v1"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// readyMessage is the message of the default ServiceCIDR's Ready
// condition, as upstream (which sets no reason).
const readyMessage = "Kubernetes default Service CIDR is ready"

func (c *Controller) service() *corev1.Service {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{
			Name:      KubernetesName,
			Namespace: Namespace,
			Labels:    map[string]string{"component": "apiserver", "provider": "kubernetes"},
		},
		Spec: corev1.ServiceSpec{
			Ports:           c.servicePorts(),
			ClusterIP:       c.serviceIP.String(),
			SessionAffinity: corev1.ServiceAffinityNone,
			Type:            corev1.ServiceTypeClusterIP,
		},
	}
	// The storage is called directly, without the decoding that applies
	// defaults.
	kapicorev1.SetDefaultsService(svc)
	return svc
}

func (c *Controller) servicePorts() []corev1.ServicePort {
	return []corev1.ServicePort{{
		Name:       PortName,
		Protocol:   corev1.ProtocolTCP,
		Port:       int32(c.cfg.PublicPort),
		TargetPort: intstr.FromInt32(int32(c.cfg.SecurePort)),
	}}
}

// ensureService creates the kubernetes service, or repairs its ports and
// type; the cluster IP of an existing service is never changed.
func (c *Controller) ensureService(ctx context.Context) error {
	return reconcile(namespaced(ctx), c.cfg.Services, KubernetesName, c.service(),
		func(s *corev1.Service) bool {
			return s.Spec.Type != corev1.ServiceTypeClusterIP || !sameSemantic(s.Spec.Ports, c.servicePorts())
		},
		func(s, want *corev1.Service) {
			s.Spec.Type = want.Spec.Type
			s.Spec.Ports = want.Spec.Ports
		})
}

func (c *Controller) endpoints() *corev1.Endpoints {
	return &corev1.Endpoints{
		ObjectMeta: metav1.ObjectMeta{
			Name:      KubernetesName,
			Namespace: Namespace,
			// The slice is written here too, so the mirroring controller
			// must leave these endpoints alone.
			Labels: map[string]string{discoveryv1.LabelSkipMirror: "true"},
		},
		Subsets: []corev1.EndpointSubset{{
			Addresses: []corev1.EndpointAddress{{IP: c.address.String()}},
			Ports:     []corev1.EndpointPort{{Name: PortName, Port: int32(c.cfg.SecurePort), Protocol: corev1.ProtocolTCP}},
		}},
	}
}

func (c *Controller) ensureEndpoints(ctx context.Context) error {
	return reconcile(namespaced(ctx), c.cfg.Endpoints, KubernetesName, c.endpoints(),
		func(e *corev1.Endpoints) bool {
			want := c.endpoints()
			return !sameSemantic(e.Subsets, want.Subsets) || e.Labels[discoveryv1.LabelSkipMirror] != "true"
		},
		func(e, want *corev1.Endpoints) {
			e.Subsets = want.Subsets
			if e.Labels == nil {
				e.Labels = map[string]string{}
			}
			e.Labels[discoveryv1.LabelSkipMirror] = "true"
		})
}

func (c *Controller) endpointSlice() *discoveryv1.EndpointSlice {
	addrType := discoveryv1.AddressTypeIPv4
	if !c.address.Is4() {
		addrType = discoveryv1.AddressTypeIPv6
	}
	return &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Name:      KubernetesName,
			Namespace: Namespace,
			Labels:    map[string]string{discoveryv1.LabelServiceName: KubernetesName},
		},
		AddressType: addrType,
		Endpoints: []discoveryv1.Endpoint{{
			Addresses:  []string{c.address.String()},
			Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)},
		}},
		Ports: []discoveryv1.EndpointPort{{
			Name:     ptr.To(PortName),
			Port:     ptr.To(int32(c.cfg.SecurePort)),
			Protocol: ptr.To(corev1.ProtocolTCP),
		}},
	}
}

func (c *Controller) ensureEndpointSlice(ctx context.Context) error {
	return reconcile(namespaced(ctx), c.cfg.EndpointSlices, KubernetesName, c.endpointSlice(),
		func(s *discoveryv1.EndpointSlice) bool {
			want := c.endpointSlice()
			return s.AddressType != want.AddressType || !sameSemantic(s.Endpoints, want.Endpoints) ||
				!sameSemantic(s.Ports, want.Ports) || s.Labels[discoveryv1.LabelServiceName] != KubernetesName
		},
		func(s, want *discoveryv1.EndpointSlice) {
			// addressType is immutable; a changed family needs a new
			// slice, which an admin gets by deleting this one.
			s.Endpoints = want.Endpoints
			s.Ports = want.Ports
			if s.Labels == nil {
				s.Labels = map[string]string{}
			}
			s.Labels[discoveryv1.LabelServiceName] = KubernetesName
		})
}

// ensureServiceCIDR creates the default ServiceCIDR and marks it Ready
// when its CIDRs are this server's. A ServiceCIDR that disagrees is left
// alone and not made Ready, as upstream.
func (c *Controller) ensureServiceCIDR(ctx context.Context) error {
	return c.writeServiceCIDR(ctx, true)
}

// writeServiceCIDR is ensureServiceCIDR; without lookFirst it creates the
// ServiceCIDR without reading it first, for storage known to be fresh, and
// goes the long way if it exists after all (another server made it).
func (c *Controller) writeServiceCIDR(ctx context.Context, lookFirst bool) error {
	ctx = cluster(ctx)
	cidrs := []string{c.cfg.ServiceCIDR.Masked().String()}
	var obj runtime.Object
	var err error
	if lookFirst {
		obj, err = c.cfg.ServiceCIDRs.Get(ctx, KubernetesName, &metav1.GetOptions{})
	}
	if !lookFirst || apierrors.IsNotFound(err) {
		want := &networkingv1.ServiceCIDR{
			ObjectMeta: metav1.ObjectMeta{Name: KubernetesName},
			Spec:       networkingv1.ServiceCIDRSpec{CIDRs: cidrs},
		}
		obj, err = c.cfg.ServiceCIDRs.Create(ctx, want, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) && !lookFirst {
			return c.writeServiceCIDR(ctx, true)
		}
	}
	if err != nil {
		return err
	}
	sc := obj.(*networkingv1.ServiceCIDR)
	if !sameSemantic(sc.Spec.CIDRs, cidrs) {
		c.cfg.Logger.Warn("bootstrap: the default ServiceCIDR does not match this server's service range", "cidrs", sc.Spec.CIDRs, "want", cidrs)
		return nil
	}
	if cond := meta.FindStatusCondition(sc.Status.Conditions, networkingv1.ServiceCIDRConditionReady); cond != nil && cond.Status != metav1.ConditionUnknown {
		return nil
	}
	updated := sc.DeepCopy()
	meta.SetStatusCondition(&updated.Status.Conditions, metav1.Condition{
		Type:    networkingv1.ServiceCIDRConditionReady,
		Status:  metav1.ConditionTrue,
		Message: readyMessage,
	})
	_, _, err = c.cfg.ServiceCIDRStatus.Update(ctx, KubernetesName, rest.DefaultUpdatedObjectInfo(updated), rest.ValidateAllObjectFunc, rest.ValidateAllObjectUpdateFunc, false, &metav1.UpdateOptions{})
	return err
}
