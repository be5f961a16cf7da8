// Package flowschema is the REST storage of flowcontrol.apiserver.k8s.io/v1
// flow schemas and their status subresource: strategies, table and store.
package flowschema

import (
	"context"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/flowcontrol/validation"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how flow schemas are written through the main resource:
// cluster-scoped, status dropped on create and kept on update, generation
// bumped by spec changes.
type Strategy struct {
	rest.SpecStatusStrategy
}

// StatusStrategy writes flowschemas/status: only status changes; spec and
// metadata (but managedFields) are kept, as upstream.
type StatusStrategy struct {
	Strategy
}

var (
	_ rest.RESTCreateStrategy = Strategy{}
	_ rest.RESTUpdateStrategy = Strategy{}
	_ rest.RESTDeleteStrategy = Strategy{}
	_ rest.RESTUpdateStrategy = StatusStrategy{}
)

// NewStrategy returns the flow schema strategy; typer is the server's
// scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.SpecStatusStrategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: typer}}}
}

// NamespaceScoped is false: flow schemas are cluster-scoped.
func (Strategy) NamespaceScoped() bool { return false }

// Validate checks a new flow schema.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateFlowSchema(obj.(*flowcontrolv1.FlowSchema))
}

// ValidateUpdate checks an update.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateFlowSchemaUpdate(obj.(*flowcontrolv1.FlowSchema), old.(*flowcontrolv1.FlowSchema))
}

// PrepareForUpdate keeps the stored metadata and spec, taking only status
// and managedFields from the request.
func (StatusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	rest.KeepStoredMetadataAndSpec(obj, old)
}

// ValidateUpdate checks the new status.
func (StatusStrategy) ValidateUpdate(_ context.Context, obj, _ runtime.Object) field.ErrorList {
	return validation.ValidateFlowSchemaStatus(&obj.(*flowcontrolv1.FlowSchema).Status, field.NewPath("status"))
}

// GetResetFields: status writes ignore metadata and spec.
func (StatusStrategy) GetResetFields() map[string]struct{} {
	return map[string]struct{}{"metadata": {}, "spec": {}}
}
