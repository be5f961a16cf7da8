// Package event is the REST storage of core/v1 events: its strategy and
// its generic store. The same stored events are served as
// events.k8s.io/v1; the strategy applies the stricter rules of that API
// when the request comes through it.
package event

import (
	"context"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/core/validation"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how events are created, updated and deleted. Events are
// namespaced and have no status, as rest.DefaultStrategy assumes; they
// differ in validation and in AllowCreateOnUpdate.
type Strategy struct {
	rest.DefaultStrategy
}

var (
	_ rest.GarbageCollectionDeleteStrategy = Strategy{}
	_ rest.RESTCreateStrategy              = Strategy{}
	_ rest.RESTUpdateStrategy              = Strategy{}
	_ rest.RESTDeleteStrategy              = Strategy{}
)

// NewStrategy returns the event strategy; typer is the server's scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.DefaultStrategy{ObjectTyper: typer}}
}

// DefaultGarbageCollectionPolicy is Unsupported: events are never garbage
// collected by owner, so deleting one never sets the orphan or
// foregroundDeletion finalizer.
func (Strategy) DefaultGarbageCollectionPolicy(context.Context) rest.GarbageCollectionPolicy {
	return rest.Unsupported
}

// Validate checks a new event with the rules of the request's API
// version.
func (Strategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateEventCreate(obj.(*corev1.Event), requestGroupVersion(ctx))
}

// ValidateUpdate checks an update with the rules of the request's API
// version.
func (Strategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateEventUpdate(obj.(*corev1.Event), old.(*corev1.Event), requestGroupVersion(ctx))
}

// requestGroupVersion is the group version the request named; none (a
// call from inside the server) means the strict rules, as upstream.
func requestGroupVersion(ctx context.Context) schema.GroupVersion {
	if info, ok := request.RequestInfoFrom(ctx); ok {
		return schema.GroupVersion{Group: info.APIGroup, Version: info.APIVersion}
	}
	return schema.GroupVersion{}
}

// AllowCreateOnUpdate is true: event recorders PUT events whether or not
// they exist.
func (Strategy) AllowCreateOnUpdate() bool { return true }

// GetAttrs returns an event's labels and selectable fields. source falls
// back to the reporting controller of events.k8s.io events, and
// reportingComponent is the core/v1 name of reportingController.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	e, ok := obj.(*corev1.Event)
	if !ok {
		return nil, nil, fmt.Errorf("not an event: %T", obj)
	}
	source := e.Source.Component
	if source == "" {
		source = e.ReportingController
	}
	ls, fs, err := generic.DefaultNamespaceScopedAttr(e)
	if err != nil {
		return nil, nil, err
	}
	ref := e.InvolvedObject
	maps.Copy(fs, fields.Set{
		"involvedObject.kind":            ref.Kind,
		"involvedObject.namespace":       ref.Namespace,
		"involvedObject.name":            ref.Name,
		"involvedObject.uid":             string(ref.UID),
		"involvedObject.apiVersion":      ref.APIVersion,
		"involvedObject.resourceVersion": ref.ResourceVersion,
		"involvedObject.fieldPath":       ref.FieldPath,
		"reason":                         e.Reason,
		"reportingComponent":             e.ReportingController,
		"source":                         source,
		"type":                           e.Type,
	})
	return ls, fs, nil
}
