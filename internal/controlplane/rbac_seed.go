package controlplane

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/internal/auth/authorizer/rbac/bootstrappolicy"
	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/endpoints/handlers"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
	registryrest "github.com/kapi-dev/kapi/internal/registry/rest"
)

// The RBAC bootstrap policy is ~150 objects. Created through the loopback
// client once the server serves, each create is a full request (TLS,
// authentication, admission, managed fields) whose watch event then goes
// to every informer started meanwhile (authorization, garbage collector,
// quota, aggregation): that was most of a test server's start. On a fresh
// cluster, before the server serves, nothing can observe the difference
// between that and writing the same objects straight into storage: no
// client is connected, no webhook or admission policy exists yet, and
// the objects get the managed fields the loopback client's creates would
// have recorded. So seedRBAC does that; when storage already holds RBAC
// or admission configuration (a restarted etcd), or audit is on (the
// creates would have been audited), it leaves the work to the
// rbac/bootstrap-roles hook, which reconciles through the API.

// rbacSeed is the outcome of seeding: done closes when it ended; seeded
// says whether the whole policy is in storage.
type rbacSeed struct {
	done   chan struct{}
	seeded bool
	err    error
}

// seedResources must all be empty for the cluster to count as fresh.
var seedResources = []struct{ group, resource string }{
	{rbacv1.GroupName, "clusterroles"},
	{rbacv1.GroupName, "clusterrolebindings"},
	{rbacv1.GroupName, "roles"},
	{rbacv1.GroupName, "rolebindings"},
	{"admissionregistration.k8s.io", "validatingwebhookconfigurations"},
	{"admissionregistration.k8s.io", "mutatingwebhookconfigurations"},
	{"admissionregistration.k8s.io", "validatingadmissionpolicies"},
	{"admissionregistration.k8s.io", "mutatingadmissionpolicies"},
}

// startRBACSeed seeds in the background; the caller waits on done before
// the server serves.
func startRBACSeed(ctx context.Context, cs *coreStorage, scheme *runtime.Scheme, tc managedfields.TypeConverter) *rbacSeed {
	s := &rbacSeed{done: make(chan struct{})}
	go func() {
		defer close(s.done)
		s.seeded, s.err = seedRBAC(ctx, cs, scheme, tc)
	}()
	return s
}

// seedRBAC writes the bootstrap policy into empty storage and reports
// whether it did.
func seedRBAC(ctx context.Context, cs *coreStorage, scheme *runtime.Scheme, tc managedfields.TypeConverter) (bool, error) {
	// The loopback client's requests run as a system:masters member.
	ctx = request.WithUser(ctx, &user.DefaultInfo{Name: "system:apiserver", Groups: []string{user.SystemPrivilegedGroup}})
	fresh, err := storageIsFresh(ctx, cs)
	if err != nil || !fresh {
		return false, err
	}
	if err := cs.ensureSystemNamespaces(ctx); err != nil {
		return false, err
	}
	w, err := newSeedWriter(cs, scheme, tc)
	if err != nil {
		return false, err
	}
	// In parallel: on etcd each create waits for a commit, and concurrent
	// ones share it.
	objs := bootstrapObjects()
	next := make(chan runtime.Object)
	errs := make([]error, seedWorkers)
	var wg sync.WaitGroup
	for i := range seedWorkers {
		wg.Go(func() {
			for o := range next {
				if err := w.create(ctx, o); err != nil && errs[i] == nil {
					errs[i] = err
				}
			}
		})
	}
	for _, o := range objs {
		next <- o
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return false, err
	}
	return true, nil
}

// seedWorkers is how many creates the seed has in flight.
const seedWorkers = 8

// bootstrapObjects is the policy in the order the hook reconciles it.
func bootstrapObjects() []runtime.Object {
	var out []runtime.Object
	for _, r := range bootstrappolicy.ClusterRoles() {
		out = append(out, &r)
	}
	for _, b := range bootstrappolicy.ClusterRoleBindings() {
		out = append(out, &b)
	}
	roles := bootstrappolicy.NamespaceRoles()
	for _, ns := range slices.Sorted(maps.Keys(roles)) {
		for _, r := range roles[ns] {
			out = append(out, &r)
		}
	}
	bindings := bootstrappolicy.NamespaceRoleBindings()
	for _, ns := range slices.Sorted(maps.Keys(bindings)) {
		for _, b := range bindings[ns] {
			out = append(out, &b)
		}
	}
	return out
}

// storageIsFresh reports whether no RBAC object and no admission
// configuration is stored.
func storageIsFresh(ctx context.Context, cs *coreStorage) (bool, error) {
	for _, r := range seedResources {
		lister, ok := cs.lookup(r.group, r.resource).(registryrest.Lister)
		if !ok {
			continue
		}
		list, err := lister.List(request.WithNamespace(ctx, metav1.NamespaceAll), &metainternalversion.ListOptions{Limit: 1})
		if err != nil {
			return false, fmt.Errorf("listing %s: %w", r.resource, err)
		}
		if meta.LenList(list) > 0 {
			return false, nil
		}
	}
	return true, nil
}

// seedWriter creates objects as the create handler would: defaulted, with
// the managed fields of the loopback client's update. It is safe for
// concurrent use.
type seedWriter struct {
	cs      *coreStorage
	scheme  *runtime.Scheme
	manager string
	kinds   map[string]seedKind
}

// seedKind is where objects of one kind go and how their fields are
// recorded.
type seedKind struct {
	creater registryrest.Creater
	fm      *managedfields.FieldManager
}

var seedPaths = map[string]string{
	"ClusterRole": "clusterroles", "ClusterRoleBinding": "clusterrolebindings",
	"Role": "roles", "RoleBinding": "rolebindings",
}

func newSeedWriter(cs *coreStorage, scheme *runtime.Scheme, tc managedfields.TypeConverter) (*seedWriter, error) {
	w := &seedWriter{cs: cs, scheme: scheme, manager: handlers.ManagerFromUserAgent(rest.DefaultKubernetesUserAgent()), kinds: map[string]seedKind{}}
	for kind, path := range seedPaths {
		creater, ok := cs.lookup(rbacv1.GroupName, path).(registryrest.Creater)
		if !ok {
			return nil, fmt.Errorf("no storage for %s", path)
		}
		gvk := rbacv1.SchemeGroupVersion.WithKind(kind)
		fm, err := handlers.NewFieldManager(tc, scheme, gvk, gvk.GroupVersion(), "", nil)
		if err != nil {
			return nil, err
		}
		w.kinds[kind] = seedKind{creater: creater, fm: fm}
	}
	return w, nil
}

func (w *seedWriter) create(ctx context.Context, obj runtime.Object) error {
	gvks, _, err := w.scheme.ObjectKinds(obj)
	if err != nil {
		return err
	}
	k, ok := w.kinds[gvks[0].Kind]
	if !ok {
		return fmt.Errorf("unexpected kind %s", gvks[0].Kind)
	}
	obj = obj.DeepCopyObject()
	w.scheme.Default(obj)
	obj = k.fm.UpdateNoErrors(k.creater.New(), obj, w.manager)
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
func (s *rbacSeed) wait(ctx context.Context) (bool, error) {
	if s == nil {
		return false, nil
	}
	select {
	case <-s.done:
		return s.seeded, s.err
	case <-ctx.Done():
		return false, errors.Join(ctx.Err(), errors.New("waiting for the RBAC bootstrap policy to be written"))
	}
}
