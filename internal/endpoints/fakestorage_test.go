package endpoints_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/storage"
)

var configMapsGR = corev1.Resource("configmaps")

// fakeConfigMaps is an in-memory namespaced ConfigMap storage: enough of
// the generic store's behaviour (uids, resource versions, conflicts,
// finalizers, dry run, watch) to drive the handlers.
type fakeConfigMaps struct {
	mu       sync.Mutex
	rv       int
	objs     map[string]*corev1.ConfigMap // namespace/name
	watchers []*fakeWatch
	// lastDelete records the options of the last delete, for tests.
	lastDelete *metav1.DeleteOptions
	// pulled makes Watch return watches that serve only Next, as the
	// watch cache's are driven.
	pulled bool
}

type fakeWatch struct {
	*watch.RaceFreeFakeWatcher
	ctx  context.Context
	opts *metainternalversion.ListOptions
}

var (
	_ rest.StandardStorage      = (*fakeConfigMaps)(nil)
	_ rest.ShortNamesProvider   = (*fakeConfigMaps)(nil)
	_ rest.CategoriesProvider   = (*fakeConfigMaps)(nil)
	_ rest.SingularNameProvider = (*fakeConfigMaps)(nil)
)

func newFakeConfigMaps() *fakeConfigMaps {
	return &fakeConfigMaps{objs: map[string]*corev1.ConfigMap{}}
}

func (s *fakeConfigMaps) New() runtime.Object     { return &corev1.ConfigMap{} }
func (s *fakeConfigMaps) NewList() runtime.Object { return &corev1.ConfigMapList{} }
func (s *fakeConfigMaps) Destroy()                {}
func (s *fakeConfigMaps) NamespaceScoped() bool   { return true }
func (s *fakeConfigMaps) ShortNames() []string    { return []string{"cm"} }
func (s *fakeConfigMaps) Categories() []string    { return []string{"all"} }
func (s *fakeConfigMaps) GetSingularName() string { return "configmap" }
func key(namespace, name string) string           { return namespace + "/" + name }
func (s *fakeConfigMaps) nextRV() string          { s.rv++; return strconv.Itoa(s.rv) }

func (s *fakeConfigMaps) Get(ctx context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	obj, ok := s.objs[key(request.NamespaceValue(ctx), name)]
	if !ok {
		return nil, apierrors.NewNotFound(configMapsGR, name)
	}
	return obj.DeepCopy(), nil
}

func (s *fakeConfigMaps) List(ctx context.Context, opts *metainternalversion.ListOptions) (runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	list := &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: strconv.Itoa(s.rv)}}
	for _, k := range slices.Sorted(mapsKeys(s.objs)) {
		obj := s.objs[k]
		if matches(ctx, obj, opts) {
			list.Items = append(list.Items, *obj.DeepCopy())
		}
	}
	return list, nil
}

func mapsKeys(m map[string]*corev1.ConfigMap) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func matches(ctx context.Context, obj *corev1.ConfigMap, opts *metainternalversion.ListOptions) bool {
	if ns := request.NamespaceValue(ctx); ns != "" && obj.Namespace != ns {
		return false
	}
	if opts != nil && opts.LabelSelector != nil && !opts.LabelSelector.Matches(labels.Set(obj.Labels)) {
		return false
	}
	f := fields.Set{"metadata.name": obj.Name, "metadata.namespace": obj.Namespace}
	return opts == nil || opts.FieldSelector == nil || opts.FieldSelector.Matches(f)
}

func (s *fakeConfigMaps) Create(ctx context.Context, obj runtime.Object, validate rest.ValidateObjectFunc, opts *metav1.CreateOptions) (runtime.Object, error) {
	cm := obj.(*corev1.ConfigMap).DeepCopy()
	if cm.Name == "" && cm.GenerateName != "" {
		cm.Name = cm.GenerateName + "x1y2z"
	}
	if cm.Name == "" {
		return nil, apierrors.NewInvalid(corev1.SchemeGroupVersion.WithKind("ConfigMap").GroupKind(), "", nil)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key(cm.Namespace, cm.Name)
	if _, ok := s.objs[k]; ok {
		return nil, apierrors.NewAlreadyExists(configMapsGR, cm.Name)
	}
	cm.UID = types.UID("uid-" + cm.Name)
	cm.CreationTimestamp = metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	if err := validate(ctx, cm); err != nil {
		return nil, err
	}
	if len(opts.DryRun) > 0 {
		return cm, nil
	}
	cm.ResourceVersion = s.nextRV()
	s.objs[k] = cm
	s.notify(watch.Added, cm)
	return cm.DeepCopy(), nil
}

func (s *fakeConfigMaps) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, _ bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key(request.NamespaceValue(ctx), name)
	current, ok := s.objs[k]
	if !ok {
		return nil, false, apierrors.NewNotFound(configMapsGR, name)
	}
	if p := objInfo.Preconditions(); p != nil && p.UID != nil && *p.UID != current.UID {
		return nil, false, apierrors.NewConflict(configMapsGR, name, fmt.Errorf("uid mismatch"))
	}
	obj, err := objInfo.UpdatedObject(ctx, current.DeepCopy())
	if err != nil {
		return nil, false, err
	}
	cm := obj.(*corev1.ConfigMap)
	if cm.ResourceVersion != "" && cm.ResourceVersion != current.ResourceVersion {
		return nil, false, apierrors.NewConflict(configMapsGR, name, fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
	}
	cm.UID, cm.CreationTimestamp = current.UID, current.CreationTimestamp
	if err := updateValidation(ctx, cm, current); err != nil {
		return nil, false, err
	}
	if len(opts.DryRun) > 0 {
		return cm, false, nil
	}
	cm.ResourceVersion = s.nextRV()
	s.objs[k] = cm.DeepCopy()
	s.notify(watch.Modified, cm)
	return cm, false, nil
}

func (s *fakeConfigMaps) Delete(ctx context.Context, name string, validate rest.ValidateObjectFunc, opts *metav1.DeleteOptions) (runtime.Object, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastDelete = opts
	k := key(request.NamespaceValue(ctx), name)
	cm, ok := s.objs[k]
	if !ok {
		return nil, false, apierrors.NewNotFound(configMapsGR, name)
	}
	if p := opts.Preconditions; p != nil && p.UID != nil && *p.UID != cm.UID {
		return nil, false, apierrors.NewConflict(configMapsGR, name, fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", *p.UID, cm.UID))
	}
	if err := validate(ctx, cm); err != nil {
		return nil, false, err
	}
	if len(cm.Finalizers) > 0 {
		now := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 6, 0, time.UTC))
		cm.DeletionTimestamp = &now
		cm.ResourceVersion = s.nextRV()
		s.notify(watch.Modified, cm)
		return cm.DeepCopy(), false, nil
	}
	delete(s.objs, k)
	s.notify(watch.Deleted, cm)
	return cm.DeepCopy(), true, nil
}

func (s *fakeConfigMaps) DeleteCollection(ctx context.Context, validate rest.ValidateObjectFunc, opts *metav1.DeleteOptions, listOpts *metainternalversion.ListOptions) (runtime.Object, error) {
	obj, err := s.List(ctx, listOpts)
	if err != nil {
		return nil, err
	}
	list := obj.(*corev1.ConfigMapList)
	for _, cm := range list.Items {
		if _, _, err := s.Delete(request.WithNamespace(ctx, cm.Namespace), cm.Name, validate, opts); err != nil {
			return nil, err
		}
	}
	return list, nil
}

// Watch sends the current objects first when asked (sendInitialEvents),
// then a bookmark ending them when bookmarks are allowed, then changes.
func (s *fakeConfigMaps) Watch(ctx context.Context, opts *metainternalversion.ListOptions) (watch.Interface, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := &fakeWatch{RaceFreeFakeWatcher: watch.NewRaceFreeFake(), ctx: ctx, opts: opts}
	if opts.SendInitialEvents != nil && *opts.SendInitialEvents {
		for _, k := range slices.Sorted(mapsKeys(s.objs)) {
			if matches(ctx, s.objs[k], opts) {
				w.Add(s.objs[k].DeepCopy())
			}
		}
		if opts.AllowWatchBookmarks {
			w.Action(watch.Bookmark, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
				ResourceVersion: strconv.Itoa(s.rv),
				Annotations:     map[string]string{metav1.InitialEventsAnnotationKey: "true"},
			}})
		}
	}
	s.watchers = append(s.watchers, w)
	if s.pulled {
		return pulledWatch{w}, nil
	}
	return w, nil
}

// pulledWatch is a fakeWatch a consumer can only drive with Next.
type pulledWatch struct{ w *fakeWatch }

var _ storage.PulledWatch = pulledWatch{}

func (p pulledWatch) Stop() { p.w.Stop() }

func (p pulledWatch) ResultChan() <-chan watch.Event {
	panic("ResultChan of a watch the handler should pull")
}

func (p pulledWatch) Next(ctx context.Context) (watch.Event, bool) {
	select {
	case <-ctx.Done():
		return watch.Event{}, false
	case ev, ok := <-p.w.ResultChan():
		return ev, ok
	}
}

func (p pulledWatch) TryNext(context.Context) (watch.Event, bool) {
	select {
	case ev, ok := <-p.w.ResultChan():
		return ev, ok
	default:
		return watch.Event{}, false
	}
}

func (s *fakeConfigMaps) notify(t watch.EventType, cm *corev1.ConfigMap) {
	for _, w := range s.watchers {
		if !w.IsStopped() && matches(w.ctx, cm, w.opts) {
			w.Action(t, cm.DeepCopy())
		}
	}
}

// ConvertToTable renders a name and a data count column, as a storage's
// strategy would; it honours NoHeaders.
func (s *fakeConfigMaps) ConvertToTable(_ context.Context, obj runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	table := &metav1.Table{}
	if opts, ok := tableOptions.(*metav1.TableOptions); !ok || !opts.NoHeaders {
		table.ColumnDefinitions = []metav1.TableColumnDefinition{
			{Name: "Name", Type: "string", Format: "name"},
			{Name: "Data", Type: "integer"},
		}
	}
	add := func(o runtime.Object) error {
		cm, ok := o.(*corev1.ConfigMap)
		if !ok {
			return fmt.Errorf("unexpected %T", o)
		}
		table.Rows = append(table.Rows, metav1.TableRow{Cells: []any{cm.Name, int64(len(cm.Data))}, Object: runtime.RawExtension{Object: cm}})
		return nil
	}
	if meta.IsListType(obj) {
		if err := meta.EachListItem(obj, add); err != nil {
			return nil, err
		}
		list := obj.(*corev1.ConfigMapList)
		table.ResourceVersion = list.ResourceVersion
		return table, nil
	}
	return table, add(obj)
}

// readOnlyConfigMaps serves only get: every other verb is 405.
type readOnlyConfigMaps struct{ inner *fakeConfigMaps }

func (s readOnlyConfigMaps) New() runtime.Object   { return &corev1.ConfigMap{} }
func (s readOnlyConfigMaps) Destroy()              {}
func (s readOnlyConfigMaps) NamespaceScoped() bool { return true }
func (s readOnlyConfigMaps) Get(ctx context.Context, name string, o *metav1.GetOptions) (runtime.Object, error) {
	return s.inner.Get(ctx, name, o)
}
