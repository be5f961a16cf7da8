package rbac

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kapi-dev/kapi/internal/auth/user"
)

// source names the binding a rule came from. It is built as a string only
// when a decision's reason needs it.
type source struct {
	crb     *rbacv1.ClusterRoleBinding
	rb      *rbacv1.RoleBinding
	subject *rbacv1.Subject
}

// String is upstream's wording, e.g. `ClusterRoleBinding "admins" of
// ClusterRole "admin" to User "alice"`; a role binding is named
// "name/namespace".
func (s source) String() string {
	if s.crb != nil {
		return fmt.Sprintf("ClusterRoleBinding %q of %s %q to %s",
			s.crb.Name, s.crb.RoleRef.Kind, s.crb.RoleRef.Name, describeSubject(s.subject, ""))
	}
	return fmt.Sprintf("RoleBinding %q of %s %q to %s",
		s.rb.Name+"/"+s.rb.Namespace, s.rb.RoleRef.Kind, s.rb.RoleRef.Name, describeSubject(s.subject, s.rb.Namespace))
}

// visitor receives each rule bound to the user, or an error met resolving
// them (rule is then nil); it returns false to stop.
type visitor func(src source, rule *rbacv1.PolicyRule, err error) bool

// visitRules walks the cluster role bindings, then (for a namespace) the
// role bindings there, calling visit for each rule of each role bound to u.
func (a *Authorizer) visitRules(ctx context.Context, u user.Info, namespace string, visit visitor) {
	if u == nil {
		return
	}
	crbs, err := a.bindings.clusterRoleBindings(u)
	if err != nil {
		if !visit(source{}, nil, err) {
			return
		}
	}
	for _, b := range crbs {
		i := subjectIndex(u, b.Subjects, "")
		if i < 0 {
			continue
		}
		if !a.visitRole(ctx, source{crb: b, subject: &b.Subjects[i]}, b.RoleRef, "", visit) {
			return
		}
	}
	if namespace == "" {
		return
	}
	rbs, err := a.bindings.roleBindings(u, namespace)
	if err != nil {
		if !visit(source{}, nil, err) {
			return
		}
	}
	for _, b := range rbs {
		i := subjectIndex(u, b.Subjects, namespace)
		if i < 0 {
			continue
		}
		if !a.visitRole(ctx, source{rb: b, subject: &b.Subjects[i]}, b.RoleRef, namespace, visit) {
			return
		}
	}
}

// visitRole visits the rules of ref; false means the visitor stopped.
func (a *Authorizer) visitRole(ctx context.Context, src source, ref rbacv1.RoleRef, namespace string, visit visitor) bool {
	rules, err := a.GetRoleReferenceRules(ctx, ref, namespace)
	if err != nil {
		return visit(source{}, nil, err)
	}
	for i := range rules {
		if !visit(src, &rules[i], nil) {
			return false
		}
	}
	return true
}
