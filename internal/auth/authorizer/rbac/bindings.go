package rbac

import (
	"cmp"
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/labels"
	rbaclisters "k8s.io/client-go/listers/rbac/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kapi-dev/kapi/internal/auth/user"
)

// bindingSource finds the bindings that may apply to a user. It may return
// more than apply (the evaluator checks the subjects again), never fewer.
type bindingSource interface {
	clusterRoleBindings(u user.Info) ([]*rbacv1.ClusterRoleBinding, error)
	roleBindings(u user.Info, namespace string) ([]*rbacv1.RoleBinding, error)
}

// listerBindings scans every binding, as upstream does.
type listerBindings struct {
	rbs  rbaclisters.RoleBindingLister
	crbs rbaclisters.ClusterRoleBindingLister
}

func (l listerBindings) clusterRoleBindings(user.Info) ([]*rbacv1.ClusterRoleBinding, error) {
	return l.crbs.List(labels.Everything())
}

func (l listerBindings) roleBindings(_ user.Info, namespace string) ([]*rbacv1.RoleBinding, error) {
	return l.rbs.RoleBindings(namespace).List(labels.Everything())
}

// Index names added to the binding informers. A user key is a user name
// (service account subjects are indexed under the user name they stand
// for); a group key a group name. Role binding keys are prefixed with
// "<namespace>/" so one lookup stays inside the request's namespace.
const (
	userIndex  = "kapi.rbac/user"
	groupIndex = "kapi.rbac/group"
)

// subjectKeys returns the user and group index keys of a binding's
// subjects; namespace is "" for a cluster role binding.
func subjectKeys(subjects []rbacv1.Subject, namespace string) (users, groups []string) {
	prefix := ""
	if namespace != "" {
		prefix = namespace + "/"
	}
	for i := range subjects {
		s := &subjects[i]
		switch s.Kind {
		case rbacv1.UserKind:
			users = append(users, prefix+s.Name)
		case rbacv1.GroupKind:
			groups = append(groups, prefix+s.Name)
		case rbacv1.ServiceAccountKind:
			if name, ok := serviceAccountUsername(s, namespace); ok {
				users = append(users, prefix+name)
			}
		}
	}
	return users, groups
}

// subjectIndexers index bindings by subject; subjects reads a binding's
// subjects and namespace.
func subjectIndexers(subjects func(obj any) ([]rbacv1.Subject, string, bool)) cache.Indexers {
	keys := func(obj any, wantGroups bool) ([]string, error) {
		s, ns, ok := subjects(obj)
		if !ok {
			return nil, nil
		}
		users, groups := subjectKeys(s, ns)
		if wantGroups {
			return groups, nil
		}
		return users, nil
	}
	return cache.Indexers{
		userIndex:  func(obj any) ([]string, error) { return keys(obj, false) },
		groupIndex: func(obj any) ([]string, error) { return keys(obj, true) },
	}
}

// addSubjectIndexers adds the subject indexes to inf unless an earlier
// authorizer over the same informer did.
func addSubjectIndexers(inf cache.SharedIndexInformer, subjects func(obj any) ([]rbacv1.Subject, string, bool)) error {
	if _, done := inf.GetIndexer().GetIndexers()[userIndex]; done {
		return nil
	}
	return inf.AddIndexers(subjectIndexers(subjects))
}

func clusterRoleBindingSubjects(obj any) ([]rbacv1.Subject, string, bool) {
	b, ok := obj.(*rbacv1.ClusterRoleBinding)
	if !ok {
		return nil, "", false
	}
	return b.Subjects, "", true
}

func roleBindingSubjects(obj any) ([]rbacv1.Subject, string, bool) {
	b, ok := obj.(*rbacv1.RoleBinding)
	if !ok {
		return nil, "", false
	}
	return b.Subjects, b.Namespace, true
}

// indexedBindings looks bindings up by the user's name and groups.
type indexedBindings struct {
	rbs  cache.Indexer
	crbs cache.Indexer
}

func (x indexedBindings) clusterRoleBindings(u user.Info) ([]*rbacv1.ClusterRoleBinding, error) {
	return lookup[*rbacv1.ClusterRoleBinding](x.crbs, u, "")
}

func (x indexedBindings) roleBindings(u user.Info, namespace string) ([]*rbacv1.RoleBinding, error) {
	return lookup[*rbacv1.RoleBinding](x.rbs, u, namespace+"/")
}

// lookup gathers the bindings indexed under the user's name and each of its
// groups, without duplicates, sorted by namespace and name so a decision's
// reason does not depend on map order.
func lookup[T interface {
	*rbacv1.ClusterRoleBinding | *rbacv1.RoleBinding
	GetNamespace() string
	GetName() string
}](idx cache.Indexer, u user.Info, prefix string) ([]T, error) {
	var out []T
	add := func(index, key string) error {
		objs, err := idx.ByIndex(index, key)
		if err != nil {
			return err
		}
		for _, o := range objs {
			if b, ok := o.(T); ok {
				out = append(out, b)
			}
		}
		return nil
	}
	if err := add(userIndex, prefix+u.GetName()); err != nil {
		return nil, err
	}
	for _, g := range u.GetGroups() {
		if err := add(groupIndex, prefix+g); err != nil {
			return nil, err
		}
	}
	if len(out) < 2 {
		return out, nil
	}
	slices.SortFunc(out, func(a, b T) int {
		return cmp.Or(cmp.Compare(a.GetNamespace(), b.GetNamespace()), cmp.Compare(a.GetName(), b.GetName()))
	})
	// A binding is found once per matching subject (and, across an update
	// between two lookups, possibly in two versions): keep one per name.
	return slices.CompactFunc(out, func(a, b T) bool {
		return a.GetNamespace() == b.GetNamespace() && a.GetName() == b.GetName()
	}), nil
}
