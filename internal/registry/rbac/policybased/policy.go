package policybased

import (
	"context"
	"errors"
	"fmt"
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/authorizer/rbac"
	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

// policy holds what the checks consult.
type policy struct {
	authz authorizer.Authorizer
	rules *rbac.Authorizer
}

// fullAuthority is cluster-admin: setting an aggregation rule needs it,
// since the rule can gather any permission.
var fullAuthority = []rbacv1.PolicyRule{
	{Verbs: []string{rbacv1.VerbAll}, APIGroups: []string{rbacv1.APIGroupAll}, Resources: []string{rbacv1.ResourceAll}},
	{Verbs: []string{rbacv1.VerbAll}, NonResourceURLs: []string{rbacv1.NonResourceAll}},
}

// trustedForBindings: system:masters may write anything; the server's own
// loopback client is in it.
func trustedForBindings(ctx context.Context) bool {
	u, ok := request.UserFrom(ctx)
	return ok && u != nil && slices.Contains(u.GetGroups(), user.SystemPrivilegedGroup)
}

// trustedForRoles adds to system:masters a user the authorizer lets
// "escalate" the role resource the request names.
func (p *policy) trustedForRoles(ctx context.Context) bool {
	if trustedForBindings(ctx) {
		return true
	}
	u, ok := request.UserFrom(ctx)
	if !ok || u == nil || p.authz == nil {
		return false
	}
	info, ok := request.RequestInfoFrom(ctx)
	if !ok || !info.IsResourceRequest || info.APIGroup != rbacv1.GroupName ||
		(info.Resource != "roles" && info.Resource != "clusterroles") {
		return false
	}
	// As upstream, an error beside an allow does not revoke it.
	d, _, _ := p.authz.Authorize(ctx, authorizer.Attributes{
		User: u, Verb: "escalate", ResourceRequest: true,
		APIGroup: info.APIGroup, APIVersion: "*", Resource: info.Resource,
		Namespace: info.Namespace, Name: info.Name,
	})
	return d == authorizer.DecisionAllow
}

// bindAllowed asks the authorizer whether the user may "bind" the role ref
// in the binding's namespace ("" for a cluster role binding).
func (p *policy) bindAllowed(ctx context.Context, ref rbacv1.RoleRef, namespace string) bool {
	u, ok := request.UserFrom(ctx)
	if !ok || u == nil || p.authz == nil {
		return false
	}
	attrs := authorizer.Attributes{User: u, Verb: "bind", ResourceRequest: true, Namespace: namespace, APIGroup: ref.APIGroup, Name: ref.Name}
	switch ref.Kind {
	case "ClusterRole":
		attrs.Resource = "clusterroles"
	case "Role":
		attrs.Resource = "roles"
	default:
		return false
	}
	d, _, _ := p.authz.Authorize(ctx, attrs)
	return d == authorizer.DecisionAllow
}

// confirm refuses rules the user does not hold in the request's namespace,
// with a 403 on resource/name.
func (p *policy) confirm(ctx context.Context, resource, name string, rules []rbacv1.PolicyRule) error {
	gr := rbacv1.Resource(resource)
	u, ok := request.UserFrom(ctx)
	if !ok || u == nil {
		return apierrors.NewForbidden(gr, name, errors.New("no user on context"))
	}
	owned, resolveErr := p.rules.PolicyRulesFor(ctx, u, request.NamespaceValue(ctx))
	err := rbac.ConfirmNoEscalation(u, owned, rules)
	if err == nil {
		return nil
	}
	if resolveErr != nil {
		// The rules found still count; say what could not be resolved.
		err = fmt.Errorf("%w; resolution errors: %v", err, []error{resolveErr})
	}
	return apierrors.NewForbidden(gr, name, err)
}

func (p *policy) checkRole(ctx context.Context, obj, _ runtime.Object) error {
	r := obj.(*rbacv1.Role)
	return p.confirm(ctx, "roles", r.Name, r.Rules)
}

func (p *policy) checkClusterRole(ctx context.Context, obj, old runtime.Object) error {
	r := obj.(*rbacv1.ClusterRole)
	if err := p.confirm(ctx, "clusterroles", r.Name, r.Rules); err != nil {
		return err
	}
	oldRole, _ := old.(*rbacv1.ClusterRole)
	if !hasAggregationRule(r) && !hasAggregationRule(oldRole) {
		return nil
	}
	if err := p.confirm(ctx, "clusterroles", r.Name, fullAuthority); err != nil {
		return apierrors.NewForbidden(rbacv1.Resource("clusterroles"), r.Name,
			errors.New("must have cluster-admin privileges to use the aggregationRule"))
	}
	return nil
}

// hasAggregationRule: an aggregation rule counts when it has selectors.
func hasAggregationRule(r *rbacv1.ClusterRole) bool {
	return r != nil && r.AggregationRule != nil && len(r.AggregationRule.ClusterRoleSelectors) > 0
}

func (p *policy) checkRoleBinding(ctx context.Context, obj, _ runtime.Object) error {
	// The object's namespace may still be empty: the store fills it in
	// from the request after this check.
	ns := request.NamespaceValue(ctx)
	if ns == "" {
		return apierrors.NewBadRequest("namespace is required")
	}
	b := obj.(*rbacv1.RoleBinding)
	return p.checkBinding(ctx, "rolebindings", b.Name, b.RoleRef, ns)
}

func (p *policy) checkClusterRoleBinding(ctx context.Context, obj, _ runtime.Object) error {
	b := obj.(*rbacv1.ClusterRoleBinding)
	return p.checkBinding(ctx, "clusterrolebindings", b.Name, b.RoleRef, "")
}

// checkBinding allows a binding the user may "bind", or one whose role's
// permissions it holds.
func (p *policy) checkBinding(ctx context.Context, resource, name string, ref rbacv1.RoleRef, namespace string) error {
	if p.bindAllowed(ctx, ref, namespace) {
		return nil
	}
	rules, err := p.rules.GetRoleReferenceRules(ctx, ref, namespace)
	if err != nil {
		return roleRefError(err, ref)
	}
	return p.confirm(ctx, resource, name, rules)
}

// roleRefError reports a missing role as kube-apiserver does, which reads
// roles from storage: the listers name the resource in the singular.
func roleRefError(err error, ref rbacv1.RoleRef) error {
	if !apierrors.IsNotFound(err) {
		return err
	}
	resource := "roles"
	if ref.Kind == "ClusterRole" {
		resource = "clusterroles"
	}
	return apierrors.NewNotFound(rbacv1.Resource(resource), ref.Name)
}

// onlyGCFieldsChange reports whether obj differs from old only in what the
// garbage collector writes (owner references, finalizers) and in fields the
// server manages (self link, managed fields).
func onlyGCFieldsChange(obj, old runtime.Object) bool {
	if old == nil {
		return false
	}
	oldMeta, err := meta.Accessor(old)
	if err != nil {
		return false
	}
	c := obj.DeepCopyObject()
	cMeta, err := meta.Accessor(c)
	if err != nil {
		return false
	}
	cMeta.SetOwnerReferences(oldMeta.GetOwnerReferences())
	cMeta.SetFinalizers(oldMeta.GetFinalizers())
	cMeta.SetSelfLink(oldMeta.GetSelfLink())
	cMeta.SetManagedFields(oldMeta.GetManagedFields())
	return apiequality.Semantic.DeepEqual(c, old)
}
