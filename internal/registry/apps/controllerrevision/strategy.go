// Package controllerrevision is the REST storage of apps/v1 controller
// revisions: the strategy, the table and the storage. Revisions have no
// status and no generation.
package controllerrevision

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/apps/validation"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how controller revisions are created and updated: as
// rest.DefaultStrategy, with data immutable.
type Strategy struct {
	rest.DefaultStrategy
}

var (
	_ rest.RESTCreateStrategy = Strategy{}
	_ rest.RESTUpdateStrategy = Strategy{}
	_ rest.RESTDeleteStrategy = Strategy{}
)

// NewStrategy returns the controller revision strategy; typer is the
// server's scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.DefaultStrategy{ObjectTyper: typer}}
}

// Validate checks a new controller revision.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateControllerRevision(obj.(*appsv1.ControllerRevision))
}

// ValidateUpdate checks an update: data may not change.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateControllerRevisionUpdate(obj.(*appsv1.ControllerRevision), old.(*appsv1.ControllerRevision))
}
