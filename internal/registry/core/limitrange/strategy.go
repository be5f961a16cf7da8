// Package limitrange is the REST storage of core/v1 limit ranges: their
// strategy, table and store.
package limitrange

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/core/validation"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how limit ranges are written: namespaced, no status.
type Strategy struct {
	rest.DefaultStrategy
}

var _ generic.ResourceStrategy = Strategy{}

// NewStrategy returns the limit range strategy; typer is the server's
// scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.DefaultStrategy{ObjectTyper: typer}}
}

// PrepareForCreate names a nameless limit range with a random UID, as
// upstream does.
func (Strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	lr := obj.(*corev1.LimitRange)
	if lr.Name == "" {
		lr.Name = string(uuid.NewUUID())
	}
}

// Validate checks a new limit range.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateLimitRange(obj.(*corev1.LimitRange))
}

// ValidateUpdate checks an update.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateLimitRangeUpdate(obj.(*corev1.LimitRange), old.(*corev1.LimitRange))
}

// GetAttrs returns a limit range's labels and its metadata fields.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	return generic.DefaultNamespaceScopedAttr(obj)
}
