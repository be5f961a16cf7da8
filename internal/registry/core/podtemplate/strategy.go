// Package podtemplate is the REST storage of core/v1 PodTemplates: their
// strategy (defaults, validation, generation), table and store.
package podtemplate

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/core/validation"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how pod templates are written: namespaced, validated like
// any pod template, with a generation that counts template changes.
type Strategy struct {
	rest.DefaultStrategy
}

var (
	_ rest.RESTCreateStrategy = Strategy{}
	_ rest.RESTUpdateStrategy = Strategy{}
	_ rest.RESTDeleteStrategy = Strategy{}
)

// NewStrategy returns the pod template strategy; typer is the server's
// scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.DefaultStrategy{ObjectTyper: typer}}
}

// PrepareForCreate starts generation at 1.
func (Strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	rest.SetGeneration(obj, 1)
}

// PrepareForUpdate bumps generation when the template changed.
func (Strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	rest.BumpGenerationOnChange(obj, old, "Template")
}

// Validate checks a new pod template.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidatePodTemplate(obj.(*corev1.PodTemplate))
}

// ValidateUpdate checks the metadata changes and the new template.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidatePodTemplateUpdate(obj.(*corev1.PodTemplate), old.(*corev1.PodTemplate))
}

// WarningsOnCreate returns the pod spec warnings of the template.
func (Strategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	return validation.WarningsForPodSpec(&obj.(*corev1.PodTemplate).Template.Spec, field.NewPath("template", "spec"))
}

// WarningsOnUpdate is WarningsOnCreate for the new object when the
// template changed.
func (s Strategy) WarningsOnUpdate(ctx context.Context, obj, old runtime.Object) []string {
	if !rest.FieldChanged(obj, old, "Template") {
		return nil
	}
	return s.WarningsOnCreate(ctx, obj)
}

// GetAttrs returns a pod template's labels and the metadata fields.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	t, ok := obj.(*corev1.PodTemplate)
	if !ok {
		return nil, nil, fmt.Errorf("not a pod template: %T", obj)
	}
	return generic.DefaultNamespaceScopedAttr(t)
}
