// Package horizontalpodautoscaler is the REST storage of
// HorizontalPodAutoscalers. One store holds autoscaling/v2 objects (the
// hub and storage version); autoscaling/v1 is served over the same
// storage through the scheme's conversions, so NewStorage's map is
// installed under both versions.
package horizontalpodautoscaler

import (
	"context"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/autoscaling/validation"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how HPAs are written: rest.SpecStatusStrategy (status
// reset, generation 1 and bumped on spec changes, as upstream with its
// HPAGeneration feature) with HPA validation.
type Strategy struct {
	rest.SpecStatusStrategy
}

var (
	_ rest.RESTCreateStrategy  = Strategy{}
	_ rest.RESTUpdateStrategy  = Strategy{}
	_ rest.ResetFieldsStrategy = Strategy{}
)

// NewStrategy returns the HPA strategy; typer is the server's scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.SpecStatusStrategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: typer}}}
}

// Validate checks a new HPA.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	hpa := obj.(*autoscalingv2.HorizontalPodAutoscaler)
	return validation.ValidateHorizontalPodAutoscaler(hpa, validation.OptionsFor(hpa, nil))
}

// ValidateUpdate checks an update; a stored reference that is kept is not
// checked again.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	hpa, oldHPA := obj.(*autoscalingv2.HorizontalPodAutoscaler), old.(*autoscalingv2.HorizontalPodAutoscaler)
	return validation.ValidateHorizontalPodAutoscalerUpdate(hpa, oldHPA, validation.OptionsFor(hpa, oldHPA))
}

// StatusStrategy writes horizontalpodautoscalers/status: the spec is kept.
type StatusStrategy struct {
	rest.StatusSubresourceStrategy
}

// NewStatusStrategy returns the strategy of the status subresource.
func NewStatusStrategy(typer runtime.ObjectTyper) StatusStrategy {
	return StatusStrategy{rest.StatusSubresourceStrategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: typer}}}
}

// ValidateUpdate checks the status write.
func (StatusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateHorizontalPodAutoscalerStatusUpdate(obj.(*autoscalingv2.HorizontalPodAutoscaler), old.(*autoscalingv2.HorizontalPodAutoscaler))
}
