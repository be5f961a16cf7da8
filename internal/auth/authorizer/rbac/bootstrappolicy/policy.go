// Package bootstrappolicy is the default RBAC policy kube-apiserver creates
// at start: the user-facing roles (cluster-admin, admin, edit, view and the
// aggregate-to-* roles feeding them), the roles of the system components and
// controllers, their bindings, and the namespaced roles in kube-system and
// kube-public. Features behind gates that are off by default upstream are
// left out.
package bootstrappolicy

import (
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kapi-dev/kapi/internal/auth/user"
)

// Well-known identities the defaults bind to.
const (
	nodesGroup              = "system:nodes"
	monitoringGroup         = "system:monitoring"
	allServiceAccountsGroup = "system:serviceaccounts"
	kubeProxy               = "system:kube-proxy"
	kubeControllerManager   = "system:kube-controller-manager"
	kubeScheduler           = "system:kube-scheduler"
)

// Labels that feed the aggregated roles.
const (
	aggregateToAdmin = "rbac.authorization.k8s.io/aggregate-to-admin"
	aggregateToEdit  = "rbac.authorization.k8s.io/aggregate-to-edit"
	aggregateToView  = "rbac.authorization.k8s.io/aggregate-to-view"
)

// Signer names the certificate roles approve for.
const (
	kubeAPIServerClientSigner        = "kubernetes.io/kube-apiserver-client"
	kubeAPIServerClientKubeletSigner = "kubernetes.io/kube-apiserver-client-kubelet"
	kubeletServingSigner             = "kubernetes.io/kubelet-serving"
	legacyUnknownSigner              = "kubernetes.io/legacy-unknown"
)

// NodeRules are the rules the Node authorizer grants kubelets (and that the
// system:node role holds). The Node authorizer narrows several of them to
// the objects of the requesting node.
func NodeRules() []rbacv1.PolicyRule {
	return rules(
		// API access checks; these creates do not mutate.
		can("create").in(authn).on("tokenreviews"),
		can("create").in(authz).on("subjectaccessreviews", "localsubjectaccessreviews"),
		// Service environment variables.
		can(read...).in(core).on("services"),
		// Registration and status; NodeRestriction limits a node to itself.
		can("create", "get", "list", "watch").in(core).on("nodes"),
		can("update", "patch").in(core).on("nodes/status"),
		can("update", "patch").in(core).on("nodes"),
		can("create", "update", "patch").in(core).on("events"),
		can(read...).in(core).on("pods"),
		// Mirror pods, pod status and evictions; NodeRestriction limits them
		// to pods bound to the node.
		can("create", "delete").in(core).on("pods"),
		can("update", "patch").in(core).on("pods/status"),
		can("create").in(core).on("pods/eviction"),
		// Volumes and env; the Node authorizer limits them to referenced objects.
		can("get", "list", "watch").in(core).on("secrets", "configmaps"),
		can("get").in(core).on("persistentvolumeclaims", "persistentvolumes"),
		can("get").in(core).on("endpoints"),
		// Client certificate rotation.
		can("create", "get", "list", "watch").in(certificates).on("certificatesigningrequests"),
		can("get", "create", "update", "patch", "delete").in(coordination).on("leases"),
		can("get").in(storage).on("volumeattachments"),
		can("create").in(core).on("serviceaccounts/token"),
		can("get", "update", "patch").in(core).on("persistentvolumeclaims/status"),
		can("get", "watch", "list").in(storage).on("csidrivers"),
		can("get", "create", "update", "patch", "delete").in(storage).on("csinodes"),
		can("get", "list", "watch").in(nodeGroup).on("runtimeclasses"),
		// Dynamic resource allocation.
		can("get").in(resourceGroup).on("resourceclaims"),
		can("deletecollection").in(resourceGroup).on("resourceslices"),
		// Service account tokens for image credential providers.
		can("get").in(core).on("serviceaccounts"),
	)
}

// ClusterRoles returns every bootstrap cluster role: the user-facing and
// system roles followed by the controller roles.
func ClusterRoles() []rbacv1.ClusterRole {
	roles := append(userRoles(), systemRoles()...)
	return append(roles, controllerRoles()...)
}

// userRoles are the roles for people: the super-user, discovery, and the
// aggregated namespace roles with their sources.
func userRoles() []rbacv1.ClusterRole {
	return []rbacv1.ClusterRole{
		clusterRole("cluster-admin",
			can("*").in("*").on("*"),
			can("*").urls("*")),
		clusterRole("system:discovery",
			can("get").urls("/livez", "/readyz", "/healthz", "/version", "/version/",
				"/openapi", "/openapi/*", "/api", "/api/*", "/apis", "/apis/*")),
		clusterRole("system:monitoring",
			can("get").urls("/metrics", "/metrics/slis", "/livez", "/readyz", "/healthz",
				"/livez/*", "/readyz/*", "/healthz/*")),
		clusterRole("system:basic-user",
			can("create").in(authz).on("selfsubjectaccessreviews", "selfsubjectrulesreviews"),
			can("create").in(authn).on("selfsubjectreviews")),
		clusterRole("system:public-info-viewer",
			can("get").urls("/livez", "/readyz", "/healthz", "/version", "/version/")),
		aggregated("admin", aggregateToAdmin, nil),
		aggregated("edit", aggregateToEdit, map[string]string{aggregateToAdmin: "true"}),
		aggregated("view", aggregateToView, map[string]string{aggregateToEdit: "true"}),
		withLabels(clusterRole("system:aggregate-to-admin",
			can("create").in(authz).on("localsubjectaccessreviews"),
			can(readWrite...).in(rbacGroup).on("roles", "rolebindings")),
			aggregateToAdmin),
		withLabels(clusterRole("system:aggregate-to-edit", aggregateToEditRules()...), aggregateToEdit),
		withLabels(clusterRole("system:aggregate-to-view", aggregateToViewRules()...), aggregateToView),
	}
}

func withLabels(r rbacv1.ClusterRole, label string) rbacv1.ClusterRole {
	r.Labels[label] = "true"
	return r
}

func aggregateToEditRules() []rule {
	return []rule{
		// Read on the escalating resources view leaves out.
		can(read...).in(core).on("pods/attach", "pods/proxy", "pods/exec", "pods/portforward", "secrets", "services/proxy"),
		can("impersonate").in(core).on("serviceaccounts"),
		can(write...).in(core).on("pods", "pods/attach", "pods/proxy", "pods/exec", "pods/portforward"),
		can("create").in(core).on("pods/eviction"),
		can(write...).in(core).on("replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts",
			"services", "services/proxy", "persistentvolumeclaims", "configmaps", "secrets", "events"),
		can("create").in(core).on("serviceaccounts/token"),
		can(write...).in(apps).on("statefulsets", "statefulsets/scale", "daemonsets",
			"deployments", "deployments/scale", "deployments/rollback", "replicasets", "replicasets/scale"),
		can(write...).in(autoscaling).on("horizontalpodautoscalers"),
		can(write...).in(batch).on("jobs", "cronjobs"),
		can(write...).in(extensions).on("daemonsets", "deployments", "deployments/scale", "deployments/rollback",
			"ingresses", "replicasets", "replicasets/scale", "replicationcontrollers/scale", "networkpolicies"),
		can(write...).in(policyGroup).on("poddisruptionbudgets"),
		can(write...).in(networking).on("networkpolicies", "ingresses"),
		can(readWrite...).in(coordination).on("leases"),
	}
}

func aggregateToViewRules() []rule {
	return []rule{
		can(read...).in(core).on("pods", "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts",
			"services", "services/status", "endpoints", "persistentvolumeclaims", "persistentvolumeclaims/status", "configmaps"),
		can(read...).in(core).on("limitranges", "resourcequotas", "bindings", "events", "pods/status",
			"resourcequotas/status", "namespaces/status", "replicationcontrollers/status", "pods/log"),
		// Reading namespaces in a namespace means reading that namespace.
		can(read...).in(core).on("namespaces"),
		can(read...).in(discovery).on("endpointslices"),
		can(read...).in(apps).on("controllerrevisions", "statefulsets", "statefulsets/status", "statefulsets/scale",
			"daemonsets", "daemonsets/status", "deployments", "deployments/status", "deployments/scale",
			"replicasets", "replicasets/status", "replicasets/scale"),
		can(read...).in(autoscaling).on("horizontalpodautoscalers", "horizontalpodautoscalers/status"),
		can(read...).in(batch).on("jobs", "cronjobs", "cronjobs/status", "jobs/status"),
		can(read...).in(extensions).on("daemonsets", "daemonsets/status", "deployments", "deployments/scale",
			"deployments/status", "ingresses", "ingresses/status", "replicasets", "replicasets/scale",
			"replicasets/status", "replicationcontrollers/scale", "networkpolicies"),
		can(read...).in(policyGroup).on("poddisruptionbudgets", "poddisruptionbudgets/status"),
		can(read...).in(networking).on("networkpolicies", "ingresses", "ingresses/status"),
	}
}

// ClusterRoleBindings returns every bootstrap cluster role binding,
// including those of the controller roles.
func ClusterRoleBindings() []rbacv1.ClusterRoleBinding {
	bindings := []rbacv1.ClusterRoleBinding{
		clusterBinding("cluster-admin", group(user.SystemPrivilegedGroup)),
		clusterBinding("system:monitoring", group(monitoringGroup)),
		clusterBinding("system:discovery", group(user.AllAuthenticated)),
		clusterBinding("system:basic-user", group(user.AllAuthenticated)),
		clusterBinding("system:public-info-viewer", group(user.AllAuthenticated), group(user.AllUnauthenticated)),
		clusterBinding("system:node-proxier", userSubject(kubeProxy)),
		clusterBinding("system:kube-controller-manager", userSubject(kubeControllerManager)),
		clusterBinding("system:kube-dns", serviceAccount("kube-system", "kube-dns")),
		clusterBinding("system:kube-scheduler", userSubject(kubeScheduler)),
		clusterBinding("system:volume-scheduler", userSubject(kubeScheduler)),
		// Kept without subjects since the Node authorizer took over; the
		// object exists so upgrades can drop the old system:nodes subject.
		clusterBinding("system:node"),
		// Workloads may read the service account issuer discovery documents.
		clusterBinding("system:service-account-issuer-discovery", group(allServiceAccountsGroup)),
	}
	return append(bindings, controllerRoleBindings()...)
}
