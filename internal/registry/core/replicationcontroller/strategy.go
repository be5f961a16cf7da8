// Package replicationcontroller is the REST storage of core/v1
// replication controllers: the strategies of the main resource and of
// replicationcontrollers/status, the table kubectl prints, and the scale
// subresource.
package replicationcontroller

import (
	"context"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/core/validation"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how replication controllers are written through the main
// resource: status is the controller's, generation counts spec changes
// (rest.SpecStatusStrategy).
type Strategy struct {
	rest.SpecStatusStrategy
}

// StatusStrategy is the update strategy of replicationcontrollers/status.
type StatusStrategy struct {
	rest.StatusSubresourceStrategy
}

var (
	_ rest.GarbageCollectionDeleteStrategy = Strategy{}
	_ generic.ResourceStrategy             = Strategy{}
	_ rest.RESTUpdateStrategy              = StatusStrategy{}
	_ rest.ResetFieldsStrategy             = Strategy{}
	_ rest.ResetFieldsStrategy             = StatusStrategy{}
)

// NewStrategy returns the replication controller strategy; typer is the
// server's scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.SpecStatusStrategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: typer}}}
}

// NewStatusStrategy returns the strategy of replicationcontrollers/status.
func NewStatusStrategy(typer runtime.ObjectTyper) StatusStrategy {
	return StatusStrategy{rest.StatusSubresourceStrategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: typer}}}
}

// DefaultGarbageCollectionPolicy orphans the pods of a controller deleted
// through core/v1 without a propagation policy, as before server-side
// garbage collection (upstream keeps this for compatibility).
func (Strategy) DefaultGarbageCollectionPolicy(ctx context.Context) rest.GarbageCollectionPolicy {
	return rest.OrphanInGroupVersions(ctx, corev1.SchemeGroupVersion)
}

// Validate checks a new replication controller.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateReplicationController(obj.(*corev1.ReplicationController))
}

// ValidateUpdate checks an update.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateReplicationControllerUpdate(obj.(*corev1.ReplicationController), old.(*corev1.ReplicationController))
}

// Validate is never called: the status subresource does not create.
func (StatusStrategy) Validate(context.Context, runtime.Object) field.ErrorList { return nil }

// ValidateUpdate checks the replica counts of a status write.
func (StatusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateReplicationControllerStatusUpdate(obj.(*corev1.ReplicationController), old.(*corev1.ReplicationController))
}

// GetAttrs returns a replication controller's labels and selectable
// fields: the metadata ones and status.replicas.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	rc, ok := obj.(*corev1.ReplicationController)
	if !ok {
		return nil, nil, fmt.Errorf("not a replicationcontroller: %T", obj)
	}
	ls, fs, err := generic.DefaultNamespaceScopedAttr(rc)
	if err != nil {
		return nil, nil, err
	}
	fs["status.replicas"] = strconv.Itoa(int(rc.Status.Replicas))
	return ls, fs, nil
}
