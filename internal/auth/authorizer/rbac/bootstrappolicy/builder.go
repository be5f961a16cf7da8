package bootstrappolicy

import (
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Verb sets used throughout the policy.
var (
	read       = []string{"get", "list", "watch"}
	write      = []string{"create", "update", "patch", "delete", "deletecollection"}
	readWrite  = []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}
	readUpdate = []string{"get", "list", "watch", "update", "patch"}
)

// API groups named by the policy.
const (
	core          = ""
	apps          = "apps"
	authn         = "authentication.k8s.io"
	authz         = "authorization.k8s.io"
	autoscaling   = "autoscaling"
	batch         = "batch"
	certificates  = "certificates.k8s.io"
	coordination  = "coordination.k8s.io"
	discovery     = "discovery.k8s.io"
	extensions    = "extensions"
	policyGroup   = "policy"
	rbacGroup     = rbacv1.GroupName
	resourceGroup = "resource.k8s.io"
	storage       = "storage.k8s.io"
	networking    = "networking.k8s.io"
	events        = "events.k8s.io"
	admissionreg  = "admissionregistration.k8s.io"
	nodeGroup     = "node.k8s.io"
	metricsGroup  = "metrics.k8s.io"
	customMetrics = "custom.metrics.k8s.io"
	extMetrics    = "external.metrics.k8s.io"
)

// Metadata every bootstrap object carries, so reconciliation and admins can
// tell them apart from user objects.
const (
	BootstrappingLabel = "kubernetes.io/bootstrapping"
	BootstrappingValue = "rbac-defaults"
	AutoUpdate         = rbacv1.AutoUpdateAnnotationKey
)

// rule is a PolicyRule under construction: rule(verbs).in(groups).on(resources).
type rule rbacv1.PolicyRule

func can(verbs ...string) rule { return rule{Verbs: verbs} }

func (r rule) in(groups ...string) rule    { r.APIGroups = groups; return r }
func (r rule) on(resources ...string) rule { r.Resources = resources; return r }
func (r rule) named(names ...string) rule  { r.ResourceNames = names; return r }
func (r rule) urls(urls ...string) rule    { r.NonResourceURLs = urls; return r }

// policyRule returns the rule with every list sorted and copied, as the
// upstream defaults are written, so reconciliation compares stable data.
func (r rule) policyRule() rbacv1.PolicyRule {
	sorted := func(s []string) []string {
		if s == nil {
			return nil
		}
		c := slices.Clone(s)
		slices.Sort(c)
		return c
	}
	return rbacv1.PolicyRule{
		Verbs:           sorted(r.Verbs),
		APIGroups:       sorted(r.APIGroups),
		Resources:       sorted(r.Resources),
		ResourceNames:   sorted(r.ResourceNames),
		NonResourceURLs: sorted(r.NonResourceURLs),
	}
}

func rules(rs ...rule) []rbacv1.PolicyRule {
	out := make([]rbacv1.PolicyRule, len(rs))
	for i, r := range rs {
		out[i] = r.policyRule()
	}
	return out
}

// eventsRule lets a component record events in both event APIs.
func eventsRule() rule { return can("create", "update", "patch").in(core, events).on("events") }

func defaultMeta(name, namespace string, labels map[string]string) metav1.ObjectMeta {
	l := map[string]string{BootstrappingLabel: BootstrappingValue}
	for k, v := range labels {
		l[k] = v
	}
	return metav1.ObjectMeta{
		Name:        name,
		Namespace:   namespace,
		Labels:      l,
		Annotations: map[string]string{AutoUpdate: "true"},
	}
}

func clusterRole(name string, rs ...rule) rbacv1.ClusterRole {
	return rbacv1.ClusterRole{ObjectMeta: defaultMeta(name, "", nil), Rules: rules(rs...)}
}

// aggregated is a role whose rules the aggregation controller fills from the
// roles labelled aggregateFrom; labels are its own labels.
func aggregated(name, aggregateFrom string, labels map[string]string) rbacv1.ClusterRole {
	return rbacv1.ClusterRole{
		ObjectMeta: defaultMeta(name, "", labels),
		AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{
			{MatchLabels: map[string]string{aggregateFrom: "true"}},
		}},
	}
}

// subject constructors.
func group(name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: name}
}

func userSubject(name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: name}
}

func serviceAccount(namespace, name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: name}
}

// clusterBinding binds the cluster role of the same name.
func clusterBinding(role string, subjects ...rbacv1.Subject) rbacv1.ClusterRoleBinding {
	return rbacv1.ClusterRoleBinding{
		ObjectMeta: defaultMeta(role, "", nil),
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects:   subjects,
	}
}

// roleBinding binds the role of the same name in namespace.
func roleBinding(namespace, role string, subjects ...rbacv1.Subject) rbacv1.RoleBinding {
	return rbacv1.RoleBinding{
		ObjectMeta: defaultMeta(role, namespace, nil),
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role},
		Subjects:   subjects,
	}
}
