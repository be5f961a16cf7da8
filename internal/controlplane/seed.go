package controlplane

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kapi-dev/kapi/internal/auth/authenticator/loopback"
	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/endpoints/handlers"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/flowcontrol/ensurer"
	registryrest "github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/stack"
	"github.com/kapi-dev/kapi/internal/storage/etcd3"
)

// A fresh cluster gets its bootstrap data from post-start hooks that
// create it through the loopback client: the RBAC policy (~150 objects)
// and the API Priority and Fairness configuration (19). Each create is a
// full request (TLS, authentication, admission, managed fields) whose
// watch event then goes to every informer started meanwhile: that was
// most of a test server's start. Before the server serves, nothing can
// observe the difference between that and writing the same objects
// straight into storage: no client is connected, no webhook or admission
// policy exists yet, and the objects get the managed fields the hooks'
// creates would have recorded. So the seed does that; when storage
// already holds any of it or admission configuration (a restarted etcd),
// or audit is on (the creates would have been audited), it leaves the
// work to the hooks (rbac/bootstrap-roles,
// priority-and-fairness-config-producer), which reconcile through the
// API. The hooks run as before either way: on seeded storage their first
// round finds nothing to change.

// bootstrapSeed is the outcome of seeding: done closes when it ended;
// seeded says whether the bootstrap data is in storage.
type bootstrapSeed struct {
	done   chan struct{}
	seeded bool
	err    error
}

// seedSet is one part of the bootstrap data: the resources that must be
// empty for it to be seeded, and the objects, in the order their hook
// creates them.
type seedSet struct {
	resources []schema.GroupResource
	objects   func(*runtime.Scheme) ([]seedObject, error)
}

// seedObject is one object as its hook creates it and, when a
// controller's server-side apply changes it before the server is ready,
// that apply (its body and field manager; applied with force).
type seedObject struct {
	obj          runtime.Object
	apply        []byte
	applyManager string
}

// admissionResources must be empty for any seed: their objects could
// change or refuse a create.
var admissionResources = []schema.GroupResource{
	{Group: "admissionregistration.k8s.io", Resource: "validatingwebhookconfigurations"},
	{Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations"},
	{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicies"},
	{Group: "admissionregistration.k8s.io", Resource: "mutatingadmissionpolicies"},
}

// seedEnv is what a seed reads and writes through.
type seedEnv struct {
	// lookup finds the storage of a group's resource.
	lookup func(group, resource string) registryrest.Storage
	scheme *runtime.Scheme
	tc     managedfields.TypeConverter
	// alongside, when set, runs once the storage was found fresh, while
	// the objects are written: writes nothing of the seed's depends on
	// (storage does not order one object's write after another's).
	alongside func(context.Context) error
	// ready, when set, waits until storage serves.
	ready func(context.Context) error
}

// startBootstrapSeed seeds sets in the background; the caller waits on
// done before the server serves.
func startBootstrapSeed(ctx context.Context, env seedEnv, sets ...seedSet) *bootstrapSeed {
	s := &bootstrapSeed{done: make(chan struct{})}
	// The managed-fields table is decoded (~2 ms) while storage gets ready.
	go seedFieldsTable()
	go func() {
		defer close(s.done)
		s.seeded, s.err = seed(ctx, env, sets)
	}()
	return s
}

// seed writes every set into empty storage and reports whether it did.
// It seeds all or nothing, so a half-fresh storage is left to the hooks.
func seed(ctx context.Context, env seedEnv, sets []seedSet) (bool, error) {
	// The loopback client's requests run as a system:masters member.
	ctx = request.WithUser(ctx, &user.DefaultInfo{Name: loopback.User, Groups: []string{user.SystemPrivilegedGroup}})
	resources := admissionResources
	for _, set := range sets {
		resources = append(resources[:len(resources):len(resources)], set.resources...)
	}
	if env.ready != nil {
		if err := env.ready(ctx); err != nil {
			return false, err
		}
	}
	fresh, err := storageIsEmpty(ctx, env.lookup, resources)
	if err != nil || !fresh {
		return false, err
	}
	// Alongside's writes (a few round trips to etcd, one after another)
	// overlap the objects' build and writes; the seed ends when both did.
	alongside := make(chan error, 1)
	go func() {
		if env.alongside == nil {
			alongside <- nil
			return
		}
		alongside <- env.alongside(ctx)
	}()
	written, err := writeSeedObjects(ctx, env, sets)
	return written, errors.Join(err, <-alongside)
}

// writeSeedObjects builds the sets' objects and creates them all.
func writeSeedObjects(ctx context.Context, env seedEnv, sets []seedSet) (bool, error) {
	var objs []seedObject
	for _, set := range sets {
		o, err := set.objects(env.scheme)
		if err != nil {
			return false, err
		}
		objs = append(objs, o...)
	}
	w, err := newSeedWriter(env, objs)
	if err != nil {
		return false, err
	}
	// All at once, in a few shared commits on etcd (see
	// etcd3.CreateBatch): no watch sees the seed's writes, as the watch
	// caches list only after it. Each create would otherwise wait for a
	// raft commit of its own, and an fsync with it.
	batch := &etcd3.CreateBatch{}
	ctx = etcd3.WithCreateBatch(ctx, batch)
	errs := make([]error, len(objs))
	batch.Join(len(objs))
	var wg sync.WaitGroup
	for i, o := range objs {
		wg.Go(func() {
			stack.GrowForHandler()
			defer batch.Leave(ctx)
			errs[i] = w.create(ctx, o)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return false, err
	}
	return true, nil
}

// storageIsEmpty reports whether no object of resources is stored. It
// lists them all at once: on etcd each list is a round trip.
func storageIsEmpty(ctx context.Context, lookup func(group, resource string) registryrest.Storage, resources []schema.GroupResource) (bool, error) {
	empty := make([]bool, len(resources))
	errs := make([]error, len(resources))
	var wg sync.WaitGroup
	for i, r := range resources {
		lister, ok := lookup(r.Group, r.Resource).(registryrest.Lister)
		if !ok {
			empty[i] = true
			continue
		}
		wg.Go(func() {
			list, err := lister.List(request.WithNamespace(ctx, metav1.NamespaceAll), &metainternalversion.ListOptions{Limit: 1})
			if err != nil {
				errs[i] = fmt.Errorf("listing %s: %w", r, err)
				return
			}
			empty[i] = meta.LenList(list) == 0
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return false, err
	}
	return !slices.Contains(empty, false), nil
}

// seedWriter creates objects as the create handler would: defaulted, with
// the managed fields of their hook's update. It is safe for concurrent
// use.
type seedWriter struct {
	scheme *runtime.Scheme
	kinds  map[schema.GroupVersionKind]seedKind
}

// seedKind is where objects of one kind go and how their fields are
// recorded.
type seedKind struct {
	creater registryrest.Creater
	fm      *managedfields.FieldManager
	manager string
}

// seedKinds are the kinds a seed writes: their resource, and the field
// manager of the hook that would have created them.
func seedKinds() map[schema.GroupVersionKind]seedTarget {
	loopbackManager := handlers.ManagerFromUserAgent(rest.DefaultKubernetesUserAgent())
	rbac := rbacv1.SchemeGroupVersion
	fc := flowcontrolv1.SchemeGroupVersion
	return map[schema.GroupVersionKind]seedTarget{
		rbac.WithKind("ClusterRole"):                                {"clusterroles", loopbackManager},
		rbac.WithKind("ClusterRoleBinding"):                         {"clusterrolebindings", loopbackManager},
		rbac.WithKind("Role"):                                       {"roles", loopbackManager},
		rbac.WithKind("RoleBinding"):                                {"rolebindings", loopbackManager},
		schedulingv1.SchemeGroupVersion.WithKind("PriorityClass"):   {"priorityclasses", loopbackManager},
		fc.WithKind("FlowSchema"):                                   {"flowschemas", ensurer.FieldManager},
		fc.WithKind("PriorityLevelConfiguration"):                   {"prioritylevelconfigurations", ensurer.FieldManager},
		apiregistrationv1.SchemeGroupVersion.WithKind("APIService"): {"apiservices", handlers.ManagerFromUserAgent(autoregisterUserAgent)},
	}
}

type seedTarget struct{ resource, manager string }

// newSeedWriter returns a writer for the kinds of objs.
func newSeedWriter(env seedEnv, objs []seedObject) (*seedWriter, error) {
	w := &seedWriter{scheme: env.scheme, kinds: map[schema.GroupVersionKind]seedKind{}}
	targets := seedKinds()
	for _, o := range objs {
		gvks, _, err := env.scheme.ObjectKinds(o.obj)
		if err != nil {
			return nil, err
		}
		gvk := gvks[0]
		if _, done := w.kinds[gvk]; done {
			continue
		}
		k, ok := targets[gvk]
		if !ok {
			return nil, fmt.Errorf("unexpected kind %s", gvk)
		}
		creater, ok := env.lookup(gvk.Group, k.resource).(registryrest.Creater)
		if !ok {
			return nil, fmt.Errorf("no storage for %s", k.resource)
		}
		fm, err := handlers.NewFieldManager(env.tc, env.scheme, gvk, gvk.GroupVersion(), "", nil)
		if err != nil {
			return nil, err
		}
		w.kinds[gvk] = seedKind{creater: creater, fm: fm, manager: k.manager}
	}
	return w, nil
}

func (w *seedWriter) create(ctx context.Context, so seedObject) error {
	obj := so.obj
	gvks, _, err := w.scheme.ObjectKinds(obj)
	if err != nil {
		return err
	}
	k, ok := w.kinds[gvks[0]]
	if !ok {
		return fmt.Errorf("unexpected kind %s", gvks[0])
	}
	prepare := func() runtime.Object {
		o := obj.DeepCopyObject()
		w.scheme.Default(o)
		return o
	}
	obj, err = withManagedFields(gvks[0], k.manager, so, prepare, func(o runtime.Object) (runtime.Object, error) {
		o = k.fm.UpdateNoErrors(k.creater.New(), o, k.manager)
		if so.apply == nil {
			return o, nil
		}
		// As the apply handler decodes the body and merges it.
		applied := &unstructured.Unstructured{Object: map[string]any{}}
		if err := utilyaml.Unmarshal(so.apply, &applied.Object); err != nil {
			return nil, err
		}
		return k.fm.Apply(o, applied, so.applyManager, true)
	})
	if err != nil {
		return err
	}
	accessor, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	ctx = request.WithNamespace(ctx, accessor.GetNamespace())
	if _, err := k.creater.Create(ctx, obj, registryrest.ValidateAllObjectFunc, &metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating %s %s: %w", gvks[0].Kind, objectKey(accessor), err)
	}
	return nil
}

func objectKey(m metav1.Object) string {
	if m.GetNamespace() == "" {
		return m.GetName()
	}
	return m.GetNamespace() + "/" + m.GetName()
}

// wait blocks until seeding ended and reports whether it seeded.
func (s *bootstrapSeed) wait(ctx context.Context) (bool, error) {
	if s == nil {
		return false, nil
	}
	select {
	case <-s.done:
		return s.seeded, s.err
	case <-ctx.Done():
		return false, errors.Join(ctx.Err(), errors.New("waiting for the bootstrap data to be written"))
	}
}
