package rbac

import (
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kapi-dev/kapi/internal/auth/user"
)

// serviceAccountPrefix starts the user name of every service account:
// system:serviceaccount:<namespace>:<name>.
const serviceAccountPrefix = "system:serviceaccount:"

// serviceAccountUsername is the user name a ServiceAccount subject stands
// for. A subject without a namespace means the binding's own namespace;
// without either (a cluster role binding) it names nobody, and ok is false.
func serviceAccountUsername(s *rbacv1.Subject, bindingNamespace string) (name string, ok bool) {
	ns := s.Namespace
	if ns == "" {
		ns = bindingNamespace
	}
	if ns == "" {
		return "", false
	}
	return serviceAccountPrefix + ns + ":" + s.Name, true
}

// subjectIndex returns the index of the first subject naming u, or -1.
// namespace is the binding's namespace, "" for a cluster role binding.
func subjectIndex(u user.Info, subjects []rbacv1.Subject, namespace string) int {
	for i := range subjects {
		if subjectMatches(u, &subjects[i], namespace) {
			return i
		}
	}
	return -1
}

func subjectMatches(u user.Info, s *rbacv1.Subject, namespace string) bool {
	switch s.Kind {
	case rbacv1.UserKind:
		return u.GetName() == s.Name
	case rbacv1.GroupKind:
		return slices.Contains(u.GetGroups(), s.Name)
	case rbacv1.ServiceAccountKind:
		return serviceAccountMatches(s, namespace, u.GetName())
	default:
		return false
	}
}

// serviceAccountMatches compares without building the user name, as this
// runs for every subject of every binding on the lister path.
func serviceAccountMatches(s *rbacv1.Subject, bindingNamespace, username string) bool {
	ns := s.Namespace
	if ns == "" {
		ns = bindingNamespace
	}
	if ns == "" {
		return false
	}
	rest, ok := strings.CutPrefix(username, serviceAccountPrefix)
	if !ok {
		return false
	}
	rest, ok = strings.CutPrefix(rest, ns)
	if !ok {
		return false
	}
	rest, ok = strings.CutPrefix(rest, ":")
	return ok && rest == s.Name
}

// describeSubject names a subject in an allow reason, as upstream: a
// service account is "name/namespace".
func describeSubject(s *rbacv1.Subject, bindingNamespace string) string {
	if s.Kind != rbacv1.ServiceAccountKind {
		return fmt.Sprintf("%s %q", s.Kind, s.Name)
	}
	ns := s.Namespace
	if ns == "" {
		ns = bindingNamespace
	}
	return fmt.Sprintf("%s %q", s.Kind, s.Name+"/"+ns)
}
