package sampleapiserver

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
)

// watchQueueLength is how many events a slow watcher may fall behind
// before the store waits for it.
const watchQueueLength = 100

// flunderStore keeps Flunders in memory, with a resource version that
// counts writes and every event since the start, so that a watch from a
// list's resource version misses nothing. It is the storage an
// aggregated server brings when it has no etcd.
type flunderStore struct {
	rest.TableConvertor

	mu      sync.Mutex
	rv      uint64
	objects map[string]*Flunder // by namespace/name
	events  []watch.Event       // every event, in resource-version order
	fanout  *watch.Broadcaster
}

var (
	_ rest.Storage              = (*flunderStore)(nil)
	_ rest.Scoper               = (*flunderStore)(nil)
	_ rest.SingularNameProvider = (*flunderStore)(nil)
	_ rest.ShortNamesProvider   = (*flunderStore)(nil)
	_ rest.Getter               = (*flunderStore)(nil)
	_ rest.Lister               = (*flunderStore)(nil)
	_ rest.Creater              = (*flunderStore)(nil)
	_ rest.Watcher              = (*flunderStore)(nil)
)

func newFlunderStore() *flunderStore {
	return &flunderStore{
		TableConvertor: rest.NewDefaultTableConvertor(Resource.GroupResource()),
		objects:        map[string]*Flunder{},
		fanout:         watch.NewBroadcaster(watchQueueLength, watch.WaitIfChannelFull),
	}
}

func (s *flunderStore) New() runtime.Object     { return &Flunder{} }
func (s *flunderStore) NewList() runtime.Object { return &FlunderList{} }

// Destroy ends every watch; the generic server calls it on shutdown.
func (s *flunderStore) Destroy() { s.fanout.Shutdown() }

func (s *flunderStore) NamespaceScoped() bool   { return true }
func (s *flunderStore) GetSingularName() string { return "flunder" }
func (s *flunderStore) ShortNames() []string    { return []string{"fl"} }
func (s *flunderStore) resourceVersion() string { return strconv.FormatUint(s.rv, 10) }

func (s *flunderStore) Get(ctx context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.objects[key(genericapirequest.NamespaceValue(ctx), name)]
	if !ok {
		return nil, notFound(name)
	}
	return f.DeepCopy(), nil
}

func (s *flunderStore) List(ctx context.Context, options *metainternalversion.ListOptions) (runtime.Object, error) {
	match := matcher(genericapirequest.NamespaceValue(ctx), options)
	s.mu.Lock()
	defer s.mu.Unlock()
	list := &FlunderList{ListMeta: metav1.ListMeta{ResourceVersion: s.resourceVersion()}, Items: []Flunder{}}
	for _, f := range s.objects {
		if match(f) {
			list.Items = append(list.Items, *f.DeepCopy())
		}
	}
	slices.SortFunc(list.Items, func(a, b Flunder) int {
		return strings.Compare(key(a.Namespace, a.Name), key(b.Namespace, b.Name))
	})
	return list, nil
}

// Create stores a new Flunder after the validating admission
// createValidation runs (the handler has run mutating admission). The
// object's namespace is the request's: the handler has checked it.
func (s *flunderStore) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	f, ok := obj.(*Flunder)
	if !ok {
		return nil, apierrors.NewBadRequest("not a Flunder")
	}
	f = f.DeepCopy()
	if f.Name == "" && f.GenerateName != "" {
		f.Name = f.GenerateName + utilrand.String(5)
	}
	if errs := validateFlunder(f); len(errs) > 0 {
		return nil, apierrors.NewInvalid(SchemeGroupVersion.WithKind("Flunder").GroupKind(), f.Name, errs)
	}
	if createValidation != nil {
		if err := createValidation(ctx, f); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key(f.Namespace, f.Name)
	if _, ok := s.objects[k]; ok {
		return nil, apierrors.NewAlreadyExists(Resource.GroupResource(), f.Name)
	}
	s.rv++
	f.UID = uuid.NewUUID()
	f.CreationTimestamp = metav1.Now()
	f.ResourceVersion = s.resourceVersion()
	f.Generation = 1
	s.objects[k] = f
	s.events = append(s.events, watch.Event{Type: watch.Added, Object: f.DeepCopy()})
	// Under the lock, so that events reach the fan-out in
	// resource-version order and a new watch's replay meets them exactly.
	if err := s.fanout.Action(watch.Added, f.DeepCopy()); err != nil {
		return nil, apierrors.NewServiceUnavailable(err.Error())
	}
	return f.DeepCopy(), nil
}

// Watch streams the changes after options.ResourceVersion; without one
// (or "0") it starts with an ADDED event for every object, as upstream.
func (s *flunderStore) Watch(ctx context.Context, options *metainternalversion.ListOptions) (watch.Interface, error) {
	match := matcher(genericapirequest.NamespaceValue(ctx), options)
	var from uint64
	fromState := true
	if rv := options.ResourceVersion; rv != "" && rv != "0" {
		n, err := strconv.ParseUint(rv, 10, 64)
		if err != nil {
			return nil, apierrors.NewBadRequest("invalid resource version " + strconv.Quote(rv))
		}
		from, fromState = n, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var prefix []watch.Event
	if fromState {
		for _, f := range s.objects {
			prefix = append(prefix, watch.Event{Type: watch.Added, Object: f.DeepCopy()})
		}
	} else {
		for _, e := range s.events {
			if rv, _ := strconv.ParseUint(e.Object.(*Flunder).ResourceVersion, 10, 64); rv > from {
				prefix = append(prefix, e)
			}
		}
	}
	w, err := s.fanout.WatchWithPrefix(prefix)
	if err != nil {
		return nil, apierrors.NewServiceUnavailable(err.Error())
	}
	return watch.Filter(w, func(e watch.Event) (watch.Event, bool) {
		f, ok := e.Object.(*Flunder)
		return e, ok && match(f)
	}), nil
}

// matcher is whether a Flunder is in namespace (all when empty) and
// matches the options' label and field selectors (metadata.name and
// metadata.namespace, the fields every resource has).
func matcher(namespace string, options *metainternalversion.ListOptions) func(*Flunder) bool {
	lsel, fsel := labels.Everything(), fields.Everything()
	if options != nil && options.LabelSelector != nil {
		lsel = options.LabelSelector
	}
	if options != nil && options.FieldSelector != nil {
		fsel = options.FieldSelector
	}
	return func(f *Flunder) bool {
		return (namespace == "" || f.Namespace == namespace) &&
			lsel.Matches(labels.Set(f.Labels)) &&
			fsel.Matches(fields.Set{"metadata.name": f.Name, "metadata.namespace": f.Namespace})
	}
}

// validateFlunder checks what every object needs: a name that is a DNS
// subdomain.
func validateFlunder(f *Flunder) field.ErrorList {
	var errs field.ErrorList
	name := field.NewPath("metadata", "name")
	if f.Name == "" {
		return append(errs, field.Required(name, "name or generateName is required"))
	}
	for _, msg := range validation.IsDNS1123Subdomain(f.Name) {
		errs = append(errs, field.Invalid(name, f.Name, msg))
	}
	return errs
}

func key(namespace, name string) string { return namespace + "/" + name }

func notFound(name string) error { return apierrors.NewNotFound(Resource.GroupResource(), name) }
