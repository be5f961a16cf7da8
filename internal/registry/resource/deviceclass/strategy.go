// Package deviceclass is the REST storage of resource.k8s.io/v1 device
// classes: cluster-scoped selectors and configuration that claims refer
// to by name.
package deviceclass

import (
	"context"

	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/resource/validation"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy: generation starts at 1 and grows with every spec change, as
// rest.SpecStatusStrategy does; device classes have no status.
type Strategy struct {
	rest.SpecStatusStrategy
}

var _ rest.RESTCreateStrategy = Strategy{}

// NewStrategy returns the device class strategy; typer is the scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.SpecStatusStrategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: typer}}}
}

// NamespaceScoped is false.
func (Strategy) NamespaceScoped() bool { return false }

// Validate checks a new device class.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateDeviceClass(obj.(*resourcev1.DeviceClass))
}

// ValidateUpdate checks an update.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateDeviceClassUpdate(obj.(*resourcev1.DeviceClass), old.(*resourcev1.DeviceClass))
}

// GetResetFields: nothing is ignored, there is no status.
func (Strategy) GetResetFields() map[string]struct{} { return nil }
