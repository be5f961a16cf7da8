package cacher

import (
	"bytes"
	"fmt"
	"io"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kapi-dev/kapi/internal/storage"
)

// metaObject is an API object with object metadata.
type metaObject interface {
	runtime.Object
	metav1.Object
}

// cachingObject wraps an object that many watchers send, so that each wire
// format is encoded once: the apimachinery serializers call CacheEncode
// with their identifier, and every later call with the same identifier
// reuses the bytes.
//
// The wrapped object is shared with the cache and must never change. The
// encoders get a deep copy (they set the kind on what they encode), and
// every setter first makes the wrapper's own copy (copy-on-write) and drops
// the encodings made from the old state.
type cachingObject struct {
	mu        sync.RWMutex
	obj       metaObject
	private   bool // obj is this wrapper's own copy
	encodings map[runtime.Identifier]*encoding
}

// encoding is one serialization, computed once.
type encoding struct {
	once sync.Once
	data []byte
	err  error
}

var (
	_ runtime.CacheableObject    = (*cachingObject)(nil)
	_ storage.SharedObjectHolder = (*cachingObject)(nil)
	_ metav1.Object              = (*cachingObject)(nil)
)

func newCachingObject(obj runtime.Object) (*cachingObject, error) {
	m, ok := obj.(metaObject)
	if !ok {
		return nil, fmt.Errorf("cannot cache encodings of %T: it has no object metadata", obj)
	}
	return &cachingObject{obj: m}, nil
}

// CacheEncode writes the encoding for id, computing it on first use.
func (o *cachingObject) CacheEncode(id runtime.Identifier, encode func(runtime.Object, io.Writer) error, w io.Writer) error {
	e := o.encoding(id)
	e.once.Do(func() {
		var buf bytes.Buffer
		e.err = encode(o.GetObject(), &buf)
		e.data = buf.Bytes()
	})
	if e.err != nil {
		return e.err
	}
	_, err := w.Write(e.data)
	return err
}

func (o *cachingObject) encoding(id runtime.Identifier) *encoding {
	o.mu.RLock()
	e := o.encodings[id]
	o.mu.RUnlock()
	if e != nil {
		return e
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if e = o.encodings[id]; e == nil {
		if o.encodings == nil {
			o.encodings = make(map[runtime.Identifier]*encoding)
		}
		e = &encoding{}
		o.encodings[id] = e
	}
	return e
}

// GetObject returns a deep copy of the wrapped object, the caller's to own.
func (o *cachingObject) GetObject() runtime.Object {
	o.mu.RLock()
	defer o.mu.RUnlock()
	return o.obj.DeepCopyObject()
}

// SharedObject returns the wrapped object itself, without a copy, for
// in-process readers that keep to the rule every cached object follows:
// it is never modified (storage.SharedObjectHolder).
func (o *cachingObject) SharedObject() runtime.Object {
	o.mu.RLock()
	defer o.mu.RUnlock()
	return o.obj
}

// DeepCopyObject copies the wrapper and its object, not its encodings.
func (o *cachingObject) DeepCopyObject() runtime.Object {
	return &cachingObject{obj: o.GetObject().(metaObject), private: true}
}

// GetObjectKind gives the kind of the wrapped object; setting it goes
// through copy-on-write like every other setter.
func (o *cachingObject) GetObjectKind() schema.ObjectKind { return cachingKind{o} }

type cachingKind struct{ o *cachingObject }

func (k cachingKind) GroupVersionKind() schema.GroupVersionKind {
	k.o.mu.RLock()
	defer k.o.mu.RUnlock()
	return k.o.obj.GetObjectKind().GroupVersionKind()
}

func (k cachingKind) SetGroupVersionKind(gvk schema.GroupVersionKind) {
	if k.GroupVersionKind() == gvk {
		return // no change: keep sharing the object and the encodings
	}
	k.o.modify(func(m metaObject) { m.GetObjectKind().SetGroupVersionKind(gvk) })
}

// modify applies change to the wrapper's own copy of the object.
func (o *cachingObject) modify(change func(metaObject)) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.private {
		o.obj = o.obj.DeepCopyObject().(metaObject)
		o.private = true
	}
	change(o.obj)
	o.encodings = nil
}

func get[T any](o *cachingObject, getter func(metav1.Object) T) T {
	o.mu.RLock()
	defer o.mu.RUnlock()
	return getter(o.obj)
}

func set[T any](o *cachingObject, setter func(metav1.Object, T), v T) {
	o.modify(func(m metaObject) { setter(m, v) })
}

func (o *cachingObject) GetNamespace() string        { return get(o, metav1.Object.GetNamespace) }
func (o *cachingObject) SetNamespace(v string)       { set(o, metav1.Object.SetNamespace, v) }
func (o *cachingObject) GetName() string             { return get(o, metav1.Object.GetName) }
func (o *cachingObject) SetName(v string)            { set(o, metav1.Object.SetName, v) }
func (o *cachingObject) GetGenerateName() string     { return get(o, metav1.Object.GetGenerateName) }
func (o *cachingObject) SetGenerateName(v string)    { set(o, metav1.Object.SetGenerateName, v) }
func (o *cachingObject) GetUID() types.UID           { return get(o, metav1.Object.GetUID) }
func (o *cachingObject) SetUID(v types.UID)          { set(o, metav1.Object.SetUID, v) }
func (o *cachingObject) GetResourceVersion() string  { return get(o, metav1.Object.GetResourceVersion) }
func (o *cachingObject) SetResourceVersion(v string) { set(o, metav1.Object.SetResourceVersion, v) }
func (o *cachingObject) GetGeneration() int64        { return get(o, metav1.Object.GetGeneration) }
func (o *cachingObject) SetGeneration(v int64)       { set(o, metav1.Object.SetGeneration, v) }
func (o *cachingObject) GetSelfLink() string         { return get(o, metav1.Object.GetSelfLink) }
func (o *cachingObject) SetSelfLink(v string)        { set(o, metav1.Object.SetSelfLink, v) }
func (o *cachingObject) GetCreationTimestamp() metav1.Time {
	return get(o, metav1.Object.GetCreationTimestamp)
}
func (o *cachingObject) SetCreationTimestamp(v metav1.Time) {
	set(o, metav1.Object.SetCreationTimestamp, v)
}
func (o *cachingObject) GetDeletionTimestamp() *metav1.Time {
	return get(o, metav1.Object.GetDeletionTimestamp)
}
func (o *cachingObject) SetDeletionTimestamp(v *metav1.Time) {
	set(o, metav1.Object.SetDeletionTimestamp, v)
}
func (o *cachingObject) GetDeletionGracePeriodSeconds() *int64 {
	return get(o, metav1.Object.GetDeletionGracePeriodSeconds)
}
func (o *cachingObject) SetDeletionGracePeriodSeconds(v *int64) {
	set(o, metav1.Object.SetDeletionGracePeriodSeconds, v)
}
func (o *cachingObject) GetLabels() map[string]string  { return get(o, metav1.Object.GetLabels) }
func (o *cachingObject) SetLabels(v map[string]string) { set(o, metav1.Object.SetLabels, v) }
func (o *cachingObject) GetAnnotations() map[string]string {
	return get(o, metav1.Object.GetAnnotations)
}
func (o *cachingObject) SetAnnotations(v map[string]string) { set(o, metav1.Object.SetAnnotations, v) }
func (o *cachingObject) GetFinalizers() []string            { return get(o, metav1.Object.GetFinalizers) }
func (o *cachingObject) SetFinalizers(v []string)           { set(o, metav1.Object.SetFinalizers, v) }
func (o *cachingObject) GetOwnerReferences() []metav1.OwnerReference {
	return get(o, metav1.Object.GetOwnerReferences)
}
func (o *cachingObject) SetOwnerReferences(v []metav1.OwnerReference) {
	set(o, metav1.Object.SetOwnerReferences, v)
}
func (o *cachingObject) GetManagedFields() []metav1.ManagedFieldsEntry {
	return get(o, metav1.Object.GetManagedFields)
}
func (o *cachingObject) SetManagedFields(v []metav1.ManagedFieldsEntry) {
	set(o, metav1.Object.SetManagedFields, v)
}
