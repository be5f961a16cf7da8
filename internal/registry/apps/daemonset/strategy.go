// Package daemonset is the REST storage of apps/v1 daemon sets: the
// strategies of the resource and of its status, the table, and the
// storage with its status subresource.
package daemonset

import (
	"context"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/apps/validation"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how daemon sets are created and updated: status is the
// controller's, generation counts spec changes, and the template
// generation (kept, as upstream keeps it for apps/v1, in the
// deprecated.daemonset.template.generation annotation) counts template
// changes.
type Strategy struct {
	rest.SpecStatusStrategy
}

var (
	_ rest.RESTCreateStrategy = Strategy{}
	_ rest.RESTUpdateStrategy = Strategy{}
	_ rest.RESTDeleteStrategy = Strategy{}
)

// NewStrategy returns the daemon set strategy; typer is the server's
// scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.SpecStatusStrategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: typer}}}
}

// PrepareForCreate clears status, sets generation 1 and a template
// generation of at least 1.
func (s Strategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	s.SpecStatusStrategy.PrepareForCreate(ctx, obj)
	ds := obj.(*appsv1.DaemonSet)
	setTemplateGeneration(ds, max(templateGeneration(ds), 1))
}

// PrepareForUpdate keeps the stored status and template generation; a
// template change bumps both the template generation and generation, any
// other spec change only generation.
func (Strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	ds, oldDS := obj.(*appsv1.DaemonSet), old.(*appsv1.DaemonSet)
	ds.Status = oldDS.Status
	ds.Generation = oldDS.Generation
	tg := templateGeneration(oldDS)
	switch {
	case !equality.Semantic.DeepEqual(ds.Spec.Template, oldDS.Spec.Template):
		tg++
		ds.Generation++
	case !equality.Semantic.DeepEqual(ds.Spec, oldDS.Spec):
		ds.Generation++
	}
	setTemplateGeneration(ds, tg)
}

// templateGeneration reads the annotation; absent or unreadable is 0.
func templateGeneration(ds *appsv1.DaemonSet) int64 {
	n, err := strconv.ParseInt(ds.Annotations[appsv1.DeprecatedTemplateGeneration], 10, 64)
	if err != nil {
		return 0
	}
	return n
}

func setTemplateGeneration(ds *appsv1.DaemonSet, n int64) {
	if ds.Annotations == nil {
		ds.Annotations = map[string]string{}
	}
	ds.Annotations[appsv1.DeprecatedTemplateGeneration] = strconv.FormatInt(n, 10)
}

// Validate checks a new daemon set.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateDaemonSet(obj.(*appsv1.DaemonSet))
}

// ValidateUpdate checks an update, selector immutability included.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateDaemonSetUpdate(obj.(*appsv1.DaemonSet), old.(*appsv1.DaemonSet))
}

// StatusStrategy is the update strategy of daemonsets/status: spec is
// kept, status is taken.
type StatusStrategy struct {
	rest.StatusSubresourceStrategy
}

// NewStatusStrategy returns the status strategy; typer is the server's
// scheme.
func NewStatusStrategy(typer runtime.ObjectTyper) StatusStrategy {
	return StatusStrategy{rest.StatusSubresourceStrategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: typer}}}
}

// Validate is never called: the status subresource does not create.
func (StatusStrategy) Validate(context.Context, runtime.Object) field.ErrorList { return nil }

// ValidateUpdate checks the new status.
func (StatusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateDaemonSetStatusUpdate(obj.(*appsv1.DaemonSet), old.(*appsv1.DaemonSet))
}
