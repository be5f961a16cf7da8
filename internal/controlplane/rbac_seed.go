package controlplane

import (
	"encoding/json"
	"maps"
	"slices"
	"sync"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/auth/authorizer/rbac/bootstrappolicy"
	"github.com/kapi-dev/kapi/internal/controllers/clusterroleaggregation"
)

// rbacSeed is the RBAC bootstrap policy rbac/bootstrap-roles would
// create (see seed.go), with the aggregated roles as
// start-cluster-role-aggregation-controller's pass before ready leaves
// them.
var rbacSeed = seedSet{
	resources: []schema.GroupResource{
		{Group: rbacv1.GroupName, Resource: "clusterroles"},
		{Group: rbacv1.GroupName, Resource: "clusterrolebindings"},
		{Group: rbacv1.GroupName, Resource: "roles"},
		{Group: rbacv1.GroupName, Resource: "rolebindings"},
	},
	objects: rbacSeedObjects,
}

// rbacSeedMemo holds the seed's objects for the process: the policy
// and its aggregation are the binary's (kapi's schemes all default RBAC
// alike), and aggregating the whole policy costs a few milliseconds of
// CPU per server. The objects are shared: the seed writer copies them.
var rbacSeedMemo struct {
	once sync.Once
	objs []seedObject
	err  error
}

func rbacSeedObjects(scheme *runtime.Scheme) ([]seedObject, error) {
	rbacSeedMemo.once.Do(func() { rbacSeedMemo.objs, rbacSeedMemo.err = computeRBACSeed(scheme) })
	return rbacSeedMemo.objs, rbacSeedMemo.err
}

// computeRBACSeed gives each aggregated role the aggregation
// controller's apply of the rules it gathers from the defaulted policy,
// as the controller's pass computes them from the stored one.
func computeRBACSeed(scheme *runtime.Scheme) ([]seedObject, error) {
	objs := bootstrapObjects()
	roles := map[string]*rbacv1.ClusterRole{}
	for _, o := range objs {
		if r, ok := o.(*rbacv1.ClusterRole); ok {
			r = r.DeepCopy()
			scheme.Default(r)
			roles[r.Name] = r
		}
	}
	changed, err := clusterroleaggregation.AggregateAll(roles)
	if err != nil {
		return nil, err
	}
	applies := map[string][]byte{}
	for _, name := range changed {
		body, err := json.Marshal(clusterroleaggregation.ApplyConfiguration(name, roles[name].Rules))
		if err != nil {
			return nil, err
		}
		applies[name] = body
	}
	out := make([]seedObject, 0, len(objs))
	for _, o := range objs {
		so := seedObject{obj: o}
		if r, ok := o.(*rbacv1.ClusterRole); ok && applies[r.Name] != nil {
			so.apply, so.applyManager = applies[r.Name], clusterroleaggregation.FieldManager
		}
		out = append(out, so)
	}
	return out, nil
}

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
