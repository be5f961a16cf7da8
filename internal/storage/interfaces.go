// Package storage defines the one storage interface every backend (memory,
// etcd3, and later the watch cache) implements, together with the options,
// predicates and typed errors that travel across it.
package storage

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// PulledWatch is a watch its consumer may drive itself: Next hands over
// the next event in the caller's goroutine, so a watch served this way
// costs no goroutine of its own (the watch cache's watches are). A
// consumer uses Next or ResultChan, not both, and calls Stop when done.
type PulledWatch interface {
	watch.Interface
	// Next waits for the next event; false when the watch is over or ctx
	// ends. One goroutine at a time may call it.
	Next(ctx context.Context) (watch.Event, bool)
	// TryNext is Next without waiting: false when no event is ready (or
	// the watch is over; Next then says so). A server writing events
	// flushes only when none is ready.
	TryNext(ctx context.Context) (watch.Event, bool)
}

// SharedObjectHolder is a wrapper around a cached object (a watch
// cache's event) that hands out the object itself, which readers share
// and never modify; in-process readers avoid a deep copy with it.
type SharedObjectHolder interface {
	SharedObject() runtime.Object
}

// Interface is what the generic REST store talks to. Keys are absolute
// within the backend's key space once the backend prefix is added: the
// registry passes "/configmaps/ns/name" and an etcd3 backend configured with
// prefix "/registry" stores it at "/registry/configmaps/ns/name".
type Interface interface {
	// Versioner reads and writes resourceVersion on objects and lists.
	Versioner() Versioner

	// Create stores obj at key if nothing is there yet and decodes the
	// stored object (with its new resourceVersion) into out.
	// Fails with ErrCodeKeyExists when the key is taken.
	Create(ctx context.Context, key string, obj, out runtime.Object) error

	// Delete removes key if preconditions hold and validateDeletion accepts
	// the current object; the deleted object is decoded into out.
	Delete(ctx context.Context, key string, out runtime.Object, preconditions *Preconditions, validateDeletion ValidateObjectFunc) error

	// Watch streams changes under key (a single object, or a prefix when
	// opts.Recursive). opts.ResourceVersion "" or "0" starts with the
	// current state as ADDED events (or from now for "" when
	// SendInitialEvents is false); any other value resumes after that
	// revision and fails with ErrCodeExpired when it was compacted.
	Watch(ctx context.Context, key string, opts ListOptions) (watch.Interface, error)

	// Get decodes the object at key into objPtr. With opts.IgnoreNotFound a
	// missing key leaves objPtr zero-valued instead of failing.
	Get(ctx context.Context, key string, opts GetOptions, objPtr runtime.Object) error

	// GetList fills listObj (a pointer to a *List type) with the objects
	// under key that match opts.Predicate, honouring Limit/Continue and
	// ResourceVersion/ResourceVersionMatch.
	GetList(ctx context.Context, key string, opts ListOptions, listObj runtime.Object) error

	// GuaranteedUpdate reads key, calls tryUpdate with the current object and
	// writes the result with a compare-and-swap, retrying tryUpdate on a
	// lost race. If tryUpdate returns an unchanged object no write happens.
	// The stored result is decoded into destination. When the key does not
	// exist and ignoreNotFound is set, tryUpdate receives a zero object
	// (create-on-update); otherwise it fails with ErrCodeKeyNotFound.
	GuaranteedUpdate(ctx context.Context, key string, destination runtime.Object, ignoreNotFound bool, preconditions *Preconditions, tryUpdate UpdateFunc) error

	// Count returns how many objects are stored under key (a prefix).
	Count(ctx context.Context, key string) (int64, error)

	// CurrentResourceVersion is the backend's latest revision.
	CurrentResourceVersion(ctx context.Context) (uint64, error)

	// RequestWatchProgress asks the backend to tell the watches of this
	// store's backend how far they have caught up: each watch that asked
	// for ProgressNotify and allows bookmarks then receives a BOOKMARK at
	// the revision it has reached. The watch cache uses it to learn that it
	// is fresh enough for a consistent read.
	RequestWatchProgress(ctx context.Context) error
}

// ResponseMeta tells tryUpdate about the object it is given.
type ResponseMeta struct {
	// ResourceVersion of the current object; 0 when it does not exist.
	ResourceVersion uint64
}

// UpdateFunc computes the new object from the current one. Returning an
// error aborts the update and is returned unchanged to the caller.
type UpdateFunc func(input runtime.Object, res ResponseMeta) (output runtime.Object, err error)

// ValidateObjectFunc checks an object before a write or delete.
type ValidateObjectFunc func(ctx context.Context, obj runtime.Object) error

// Preconditions must hold for a write or delete to go ahead.
type Preconditions struct {
	UID             *types.UID
	ResourceVersion *string
}

// GetOptions tune Get.
type GetOptions struct {
	IgnoreNotFound bool
	// ResourceVersion "" reads the latest; "0" allows any (cached) version;
	// a number asks for at least that version.
	ResourceVersion string
}

// ListOptions tune GetList and Watch.
type ListOptions struct {
	ResourceVersion      string
	ResourceVersionMatch metav1.ResourceVersionMatch
	Predicate            SelectionPredicate
	// Recursive treats key as a prefix (lists and collection watches).
	Recursive bool
	// ProgressNotify asks a watch for bookmark events when the client
	// allows them (Predicate.AllowWatchBookmarks).
	ProgressNotify bool
	// SendInitialEvents, when set on a watch, sends the current state first
	// and then a bookmark annotated with metav1.InitialEventsAnnotationKey.
	SendInitialEvents *bool
}

// Backend hands out storage.Interface values for resources that share one
// key space and one revision counter (one etcd cluster, or one memory store).
type Backend interface {
	// ForResource returns the storage for one resource. The codec encodes
	// objects to the resource's storage version and decodes them back.
	ForResource(cfg ResourceConfig) (Interface, error)
	// Close releases the backend (clients, watches, embedded servers).
	Close() error
}

// ResourceConfig describes one resource to a Backend.
type ResourceConfig struct {
	Codec       runtime.Codec
	NewFunc     func() runtime.Object
	NewListFunc func() runtime.Object
	// ResourcePrefix is the resource's folder, e.g. "/configmaps". Keys
	// passed to the Interface start with it.
	ResourcePrefix string
	// GroupResource names the resource in metrics and logs.
	GroupResource schema.GroupResource
}
