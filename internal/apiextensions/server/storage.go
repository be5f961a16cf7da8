package server

import (
	"context"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/storage"
)

// versionedOptions gives a CRD's store its storage wrapped in
// versionedStorage: upstream does the same in its storage codec
// (crdConversionRESTOptionsGetter), which kapi's backends do not let a
// resource swap.
type versionedOptions struct {
	generic.RESTOptionsGetter
	versions *crdVersions
}

func (o versionedOptions) GetRESTOptions(gr schema.GroupResource, example runtime.Object) (generic.RESTOptions, error) {
	opts, err := o.RESTOptionsGetter.GetRESTOptions(gr, example)
	if err != nil {
		return opts, err
	}
	inner := opts.Storage
	opts.Storage = func(newFunc, newListFunc func() runtime.Object) (storage.Interface, error) {
		s, err := inner(newFunc, newListFunc)
		if err != nil {
			return nil, err
		}
		return &versionedStorage{Interface: s, v: o.versions}, nil
	}
	return opts, nil
}

// crdVersions is what moving objects between the storage version and a
// request's version takes.
type crdVersions struct {
	conv           *crdConverter
	storageVersion string
	schemas        map[string]VersionSchema
	served         map[string]bool
}

// target is the version the request in ctx reads and writes in: its
// version when it is one of this CRD's served versions, else (controllers,
// no request) the storage version.
func (v *crdVersions) target(ctx context.Context) string {
	if info, ok := request.RequestInfoFrom(ctx); ok && info.APIGroup == v.conv.group && v.served[info.APIVersion] {
		return info.APIVersion
	}
	return v.storageVersion
}

// fromStorage defaults objects read from storage with the schema of the
// version they are stored in (a default added later shows on old objects),
// then converts them to the request's version, pruned with its schema.
func (v *crdVersions) fromStorage(ctx context.Context, objs []*unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	from := make([]string, len(objs))
	for i, u := range objs {
		from[i] = u.GetAPIVersion()
		if vs, ok := v.schemas[u.GroupVersionKind().Version]; ok && v.conv.isCustomResource(u) {
			vs.Default(u.Object)
		}
	}
	to := v.target(ctx)
	out, err := v.convert(ctx, objs, to)
	if err != nil {
		return nil, err
	}
	if vs, ok := v.schemas[to]; ok {
		for i, u := range out {
			if from[i] != u.GetAPIVersion() {
				vs.Prune(u.Object)
			}
		}
	}
	return out, nil
}

// convert converts, failing as upstream does when conversion fails: a 500
// carrying the converter's message.
func (v *crdVersions) convert(ctx context.Context, objs []*unstructured.Unstructured, to string) ([]*unstructured.Unstructured, error) {
	out, err := v.conv.convert(ctx, objs, to)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return out, nil
}

// versionedStorage stores custom resources in the storage version and
// hands them to the store in the request's version, so the strategy,
// admission and the field manager see one version, as upstream's
// per-version stores do.
type versionedStorage struct {
	storage.Interface
	v *crdVersions
}

// Destroy releases the storage underneath (its watch cache).
func (s *versionedStorage) Destroy() {
	if d, ok := s.Interface.(generic.StorageDestroyer); ok {
		d.Destroy()
	}
}

// toStorage returns a copy of obj in the storage version.
func (s *versionedStorage) toStorage(ctx context.Context, obj runtime.Object) (runtime.Object, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || isZero(u) {
		return obj, nil
	}
	out, err := s.v.convert(ctx, []*unstructured.Unstructured{u.DeepCopy()}, s.v.storageVersion)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// read moves obj, as storage decoded it, to the request's version in
// place: obj must be the caller's own (Get and the cache's Get return
// copies; lists and watch events are copied first).
func (s *versionedStorage) read(ctx context.Context, obj runtime.Object) error {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || isZero(u) {
		return nil
	}
	out, err := s.v.fromStorage(ctx, []*unstructured.Unstructured{u})
	if err != nil {
		return err
	}
	u.Object = out[0].Object
	return nil
}

// isZero: storage left the object empty (IgnoreNotFound, create on
// update).
func isZero(u *unstructured.Unstructured) bool { return len(u.Object) == 0 }

func (s *versionedStorage) Create(ctx context.Context, key string, obj, out runtime.Object) error {
	stored, err := s.toStorage(ctx, obj)
	if err != nil {
		return err
	}
	if err := s.Interface.Create(ctx, key, stored, out); err != nil {
		return err
	}
	return s.read(ctx, out)
}

func (s *versionedStorage) Delete(ctx context.Context, key string, out runtime.Object, preconditions *storage.Preconditions, validateDeletion storage.ValidateObjectFunc) error {
	validate := validateDeletion
	if validateDeletion != nil {
		validate = func(ctx context.Context, obj runtime.Object) error {
			current := obj.DeepCopyObject()
			if err := s.read(ctx, current); err != nil {
				return err
			}
			return validateDeletion(ctx, current)
		}
	}
	if err := s.Interface.Delete(ctx, key, out, preconditions, validate); err != nil {
		return err
	}
	return s.read(ctx, out)
}

func (s *versionedStorage) Get(ctx context.Context, key string, opts storage.GetOptions, objPtr runtime.Object) error {
	if err := s.Interface.Get(ctx, key, opts, objPtr); err != nil {
		return err
	}
	return s.read(ctx, objPtr)
}

// GetList converts the whole list in one conversion. The items of a list
// served by the watch cache share their maps with the cached objects:
// defaulting and conversion work on copies.
func (s *versionedStorage) GetList(ctx context.Context, key string, opts storage.ListOptions, listObj runtime.Object) error {
	if err := s.Interface.GetList(ctx, key, opts, listObj); err != nil {
		return err
	}
	list, ok := listObj.(*unstructured.UnstructuredList)
	if !ok || len(list.Items) == 0 {
		return nil
	}
	items := make([]*unstructured.Unstructured, len(list.Items))
	for i := range list.Items {
		items[i] = list.Items[i].DeepCopy()
	}
	out, err := s.v.fromStorage(ctx, items)
	if err != nil {
		return err
	}
	for i, u := range out {
		list.Items[i] = *u
	}
	return nil
}

// GuaranteedUpdate gives tryUpdate the current object in the request's
// version and stores its result in the storage version.
func (s *versionedStorage) GuaranteedUpdate(ctx context.Context, key string, destination runtime.Object, ignoreNotFound bool, preconditions *storage.Preconditions, tryUpdate storage.UpdateFunc) error {
	wrapped := func(input runtime.Object, res storage.ResponseMeta) (runtime.Object, error) {
		current := input.DeepCopyObject()
		if err := s.read(ctx, current); err != nil {
			return nil, err
		}
		out, err := tryUpdate(current, res)
		if err != nil {
			return nil, err
		}
		return s.toStorage(ctx, out)
	}
	if err := s.Interface.GuaranteedUpdate(ctx, key, destination, ignoreNotFound, preconditions, wrapped); err != nil {
		return err
	}
	return s.read(ctx, destination)
}

func (s *versionedStorage) Watch(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	w, err := s.Interface.Watch(ctx, key, opts)
	if err != nil {
		return nil, err
	}
	return newVersionedWatch(ctx, w, s), nil
}

// versionedWatch converts every event's object to the request's version;
// a conversion failure ends the watch with an Error event, as a decoding
// failure does upstream.
type versionedWatch struct {
	inner    watch.Interface
	result   chan watch.Event
	done     chan struct{}
	stopOnce sync.Once
}

func newVersionedWatch(ctx context.Context, inner watch.Interface, s *versionedStorage) *versionedWatch {
	w := &versionedWatch{inner: inner, result: make(chan watch.Event), done: make(chan struct{})}
	go w.run(ctx, s)
	return w
}

func (w *versionedWatch) run(ctx context.Context, s *versionedStorage) {
	defer close(w.result)
	defer w.inner.Stop()
	for {
		var ev watch.Event
		var ok bool
		select {
		case <-w.done:
			return
		case ev, ok = <-w.inner.ResultChan():
			if !ok {
				return
			}
		}
		failed := false
		if ev.Type != watch.Error && ev.Type != watch.Bookmark && ev.Object != nil {
			// Events may be shared with other watchers: convert a copy. The
			// watch cache's wrappers hand out a copy of the object they
			// hold, which read must see to default and convert it.
			var obj runtime.Object
			if co, ok := ev.Object.(runtime.CacheableObject); ok {
				obj = co.GetObject()
			} else {
				obj = ev.Object.DeepCopyObject()
			}
			if err := s.read(ctx, obj); err != nil {
				ev = watch.Event{Type: watch.Error, Object: statusOf(err)}
				failed = true
			} else {
				ev.Object = obj
			}
		}
		select {
		case <-w.done:
			return
		case w.result <- ev:
		}
		if failed {
			return
		}
	}
}

func statusOf(err error) runtime.Object {
	if s, ok := err.(apierrors.APIStatus); ok {
		st := s.Status()
		return &st
	}
	st := apierrors.NewInternalError(err).Status()
	return &st
}

func (w *versionedWatch) Stop() { w.stopOnce.Do(func() { close(w.done) }) }

func (w *versionedWatch) ResultChan() <-chan watch.Event { return w.result }
