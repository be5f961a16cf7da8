// Package denyserviceexternalips is the DenyServiceExternalIPs admission
// plugin: no new use of Service spec.externalIPs (CVE-2020-8554); an
// update may keep or drop the addresses a service already has.
package denyserviceexternalips

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/admission/plugins/forbidden"
)

// PluginName is the name used by --enable-admission-plugins.
const PluginName = "DenyServiceExternalIPs"

// Plugin denies new external IPs.
type Plugin struct{}

var _ admission.ValidationInterface = Plugin{}

var services = schema.GroupResource{Resource: "services"}

// Validate refuses a create with external IPs, or an update adding one.
func (Plugin) Validate(_ context.Context, a *admission.Attributes) error {
	if (a.Operation != admission.Create && a.Operation != admission.Update) || a.Resource.GroupResource() != services || a.Subresource != "" {
		return nil
	}
	svc, ok := a.Object.(*corev1.Service)
	if !ok {
		return apierrors.NewInternalError(fmt.Errorf("Expected Service resource, got: %v", a.Kind))
	}
	var old *corev1.Service
	if a.OldObject != nil {
		if old, ok = a.OldObject.(*corev1.Service); !ok {
			return apierrors.NewInternalError(fmt.Errorf("Expected Service resource, got: %v", a.Kind))
		}
	}
	if subset(svc, old) {
		return nil
	}
	return forbidden.New(a, fmt.Errorf("Use of external IPs is denied by admission control"))
}

// subset: every external IP of svc was already on old.
func subset(svc, old *corev1.Service) bool {
	if len(svc.Spec.ExternalIPs) == 0 {
		return true
	}
	if old == nil {
		return false
	}
	had := map[string]bool{}
	for _, ip := range old.Spec.ExternalIPs {
		had[ip] = true
	}
	for _, ip := range svc.Spec.ExternalIPs {
		if !had[ip] {
			return false
		}
	}
	return true
}
