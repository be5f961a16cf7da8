// Package rbac is the RBAC authorizer: it allows a request when a rule of a
// role bound to the user covers it, lists a user's rules for the review
// APIs, and holds the escalation checks (Covers, ConfirmNoEscalation) the
// RBAC storage applies to writes of roles and bindings.
package rbac

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	rbacinformers "k8s.io/client-go/informers/rbac/v1"
	rbaclisters "k8s.io/client-go/listers/rbac/v1"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

// Authorizer evaluates RBAC: the cluster role bindings, then the role
// bindings of the request's namespace. It allows a request a rule of a
// bound role covers and otherwise has no opinion.
type Authorizer struct {
	roles        rbaclisters.RoleLister
	clusterRoles rbaclisters.ClusterRoleLister
	bindings     bindingSource
}

var (
	_ authorizer.Authorizer   = (*Authorizer)(nil)
	_ authorizer.RuleResolver = (*Authorizer)(nil)
)

// New returns an authorizer over listers; it scans every binding on each
// request, as upstream does. Prefer NewFromInformers.
func New(roles rbaclisters.RoleLister, roleBindings rbaclisters.RoleBindingLister,
	clusterRoles rbaclisters.ClusterRoleLister, clusterRoleBindings rbaclisters.ClusterRoleBindingLister) *Authorizer {
	return &Authorizer{
		roles:        roles,
		clusterRoles: clusterRoles,
		bindings:     listerBindings{rbs: roleBindings, crbs: clusterRoleBindings},
	}
}

// NewFromInformers adds subject indexes to the binding informers of f and
// returns an authorizer that looks up only the bindings naming the user, its
// groups or its service account. Call it before the informer factory
// starts. Several authorizers may share the informers.
func NewFromInformers(f rbacinformers.Interface) (*Authorizer, error) {
	rbs := f.RoleBindings().Informer()
	crbs := f.ClusterRoleBindings().Informer()
	if err := addSubjectIndexers(rbs, roleBindingSubjects); err != nil {
		return nil, fmt.Errorf("indexing rolebindings by subject: %w", err)
	}
	if err := addSubjectIndexers(crbs, clusterRoleBindingSubjects); err != nil {
		return nil, fmt.Errorf("indexing clusterrolebindings by subject: %w", err)
	}
	return &Authorizer{
		roles:        f.Roles().Lister(),
		clusterRoles: f.ClusterRoles().Lister(),
		bindings:     indexedBindings{rbs: rbs.GetIndexer(), crbs: crbs.GetIndexer()},
	}, nil
}

// Authorize allows the request when a rule bound to its user covers it.
// Otherwise it has no opinion; the reason then lists the errors met while
// resolving roles (a binding to a missing role), as upstream.
func (a *Authorizer) Authorize(ctx context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	var (
		reason string
		errs   []error
	)
	a.visitRules(ctx, attrs.User, attrs.Namespace, func(src source, rule *rbacv1.PolicyRule, err error) bool {
		if err != nil {
			errs = append(errs, err)
			return true
		}
		if ruleAllows(&attrs, rule) {
			reason = "RBAC: allowed by " + src.String()
			return false
		}
		return true
	})
	if reason != "" {
		return authorizer.DecisionAllow, reason, nil
	}
	if len(errs) > 0 {
		reason = fmt.Sprintf("RBAC: %v", utilerrors.NewAggregate(errs))
	}
	return authorizer.DecisionNoOpinion, reason, nil
}

// PolicyRulesFor returns the rules bound to u in namespace ("" for the
// cluster role bindings only). A non-nil error means some rules could not
// be resolved; the rules returned still apply. The rules share memory with
// the informer cache and must not be modified.
func (a *Authorizer) PolicyRulesFor(ctx context.Context, u user.Info, namespace string) ([]rbacv1.PolicyRule, error) {
	var (
		rules []rbacv1.PolicyRule
		errs  []error
	)
	a.visitRules(ctx, u, namespace, func(_ source, rule *rbacv1.PolicyRule, err error) bool {
		if err != nil {
			errs = append(errs, err)
		} else {
			rules = append(rules, *rule)
		}
		return true
	})
	return rules, utilerrors.NewAggregate(errs)
}

// RulesFor lists the rules bound to u for SelfSubjectRulesReview. As
// upstream, the list is never marked incomplete; resolution errors come
// back as err beside the rules that were found.
func (a *Authorizer) RulesFor(ctx context.Context, u user.Info, namespace string) ([]authorizer.ResourceRule, []authorizer.NonResourceRule, bool, error) {
	policyRules, err := a.PolicyRulesFor(ctx, u, namespace)
	var (
		resourceRules    []authorizer.ResourceRule
		nonResourceRules []authorizer.NonResourceRule
	)
	for _, r := range policyRules {
		if len(r.Resources) > 0 {
			resourceRules = append(resourceRules, authorizer.ResourceRule{
				Verbs: r.Verbs, APIGroups: r.APIGroups, Resources: r.Resources, ResourceNames: r.ResourceNames,
			})
		}
		if len(r.NonResourceURLs) > 0 {
			nonResourceRules = append(nonResourceRules, authorizer.NonResourceRule{
				Verbs: r.Verbs, NonResourceURLs: r.NonResourceURLs,
			})
		}
	}
	return resourceRules, nonResourceRules, false, err
}

// GetRoleReferenceRules returns the rules of the role a binding in
// namespace ("" for a cluster role binding) refers to. A missing role is
// the listers' NotFound error.
func (a *Authorizer) GetRoleReferenceRules(_ context.Context, ref rbacv1.RoleRef, namespace string) ([]rbacv1.PolicyRule, error) {
	switch ref.Kind {
	case "Role":
		role, err := a.roles.Roles(namespace).Get(ref.Name)
		if err != nil {
			return nil, err
		}
		return role.Rules, nil
	case "ClusterRole":
		role, err := a.clusterRoles.Get(ref.Name)
		if err != nil {
			return nil, err
		}
		return role.Rules, nil
	default:
		return nil, fmt.Errorf("unsupported role reference kind: %q", ref.Kind)
	}
}
