// Package servicecidr is the REST storage of networking.k8s.io/v1
// ServiceCIDRs and their status subresource. The default one, named
// kubernetes, is kept by the bootstrap controller.
package servicecidr

import (
	"context"
	"strings"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/networking/validation"
	"github.com/kapi-dev/kapi/internal/registry/printers"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how ServiceCIDRs are written through the main resource:
// cluster-scoped, status owned by controllers. Like upstream it sets no
// metadata.generation.
type Strategy struct {
	rest.StatusOwnedStrategy
}

// StatusStrategy is the update strategy of servicecidrs/status.
type StatusStrategy struct {
	Strategy
}

var (
	_ rest.RESTCreateStrategy  = Strategy{}
	_ rest.RESTUpdateStrategy  = Strategy{}
	_ rest.ResetFieldsStrategy = Strategy{}
	_ rest.RESTUpdateStrategy  = StatusStrategy{}
	_ rest.ResetFieldsStrategy = StatusStrategy{}
)

// NewStrategy returns the ServiceCIDR strategy; typer is the server's
// scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.StatusOwnedStrategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: typer}}}
}

// NamespaceScoped is false.
func (Strategy) NamespaceScoped() bool { return false }

// Validate checks a new ServiceCIDR.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateServiceCIDR(obj.(*networkingv1.ServiceCIDR))
}

// ValidateUpdate checks the new object and the immutability of its CIDRs.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	cidr := obj.(*networkingv1.ServiceCIDR)
	return validation.ValidateServiceCIDRUpdate(cidr, old.(*networkingv1.ServiceCIDR))
}

// PrepareForUpdate keeps the stored spec.
func (StatusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	rest.CopyField(obj, old, "Spec")
}

// ValidateUpdate checks the metadata changes only, as upstream.
func (StatusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateServiceCIDRStatusUpdate(obj.(*networkingv1.ServiceCIDR), old.(*networkingv1.ServiceCIDR))
}

// GetResetFields: status writes ignore spec.
func (StatusStrategy) GetResetFields() map[string]struct{} {
	return map[string]struct{}{"spec": {}}
}

// Table prints NAME CIDRS AGE.
func Table() *printers.Table[*networkingv1.ServiceCIDR] {
	columns := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "CIDRs", Type: "string", Description: networkingv1.ServiceCIDRSpec{}.SwaggerDoc()["cidrs"]},
		printers.AgeColumn(),
	}
	return printers.New(columns, func(c *networkingv1.ServiceCIDR, now time.Time) []any {
		return []any{c.Name, strings.Join(c.Spec.CIDRs, ","), printers.Age(c.CreationTimestamp, now)}
	})
}
