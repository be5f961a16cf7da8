// Package event serves events.k8s.io/v1 Events over the core/v1 events
// storage, as upstream: one set of objects, two groups. The handlers
// convert between the two kinds through the scheme.
package event

import (
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// CoreStorage is the core/v1 events storage.
type CoreStorage interface {
	rest.StandardStorage
	rest.ShortNamesProvider
	rest.SingularNameProvider
}

// REST is the core events storage announced as events.k8s.io/v1 Event.
type REST struct {
	CoreStorage
}

var _ rest.GroupVersionKindProvider = REST{}

// GroupVersionKind is events.k8s.io/v1 Event.
func (REST) GroupVersionKind(schema.GroupVersion) schema.GroupVersionKind {
	return eventsv1.SchemeGroupVersion.WithKind("Event")
}

// NewStorage serves core, the core/v1 events storage, in events.k8s.io.
func NewStorage(core CoreStorage) map[string]rest.Storage {
	return map[string]rest.Storage{"events": REST{CoreStorage: core}}
}
