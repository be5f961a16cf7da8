package bootstrappolicy

import (
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func role(namespace, name string, rs ...rule) rbacv1.Role {
	return rbacv1.Role{ObjectMeta: defaultMeta(name, namespace, nil), Rules: rules(rs...)}
}

// NamespaceRoles returns the bootstrap roles by namespace (kube-system and
// kube-public).
func NamespaceRoles() map[string][]rbacv1.Role {
	sys, pub := metav1.NamespaceSystem, metav1.NamespacePublic
	return map[string][]rbacv1.Role{
		sys: {
			// Servers read the delegated authentication configuration here.
			role(sys, "extension-apiserver-authentication-reader",
				can("get", "list", "watch").in(core).on("configmaps").named("extension-apiserver-authentication")),
			role(sys, ControllerRolePrefix+"bootstrap-signer",
				can("get", "list", "watch").in(core).on("secrets")),
			// Deprecated upstream since 1.10, still created.
			role(sys, ControllerRolePrefix+"cloud-provider",
				can("create", "get", "list", "watch").in(core).on("configmaps")),
			role(sys, ControllerRolePrefix+"token-cleaner",
				can("get", "list", "watch", "delete").in(core).on("secrets"),
				eventsRule()),
			role(sys, "system::leader-locking-kube-controller-manager",
				can("watch").in(core).on("configmaps"),
				can("get", "update").in(core).on("configmaps").named("kube-controller-manager"),
				can("get", "watch", "list", "create", "update").in(coordination).on("leases")),
			role(sys, "system::leader-locking-kube-scheduler",
				can("watch").in(core).on("configmaps"),
				can("get", "update").in(core).on("configmaps").named("kube-scheduler")),
		},
		pub: {
			role(pub, ControllerRolePrefix+"bootstrap-signer",
				can("get", "list", "watch").in(core).on("configmaps"),
				can("update").in(core).on("configmaps").named("cluster-info"),
				eventsRule()),
		},
	}
}

// NamespaceRoleBindings returns the bootstrap role bindings by namespace.
func NamespaceRoleBindings() map[string][]rbacv1.RoleBinding {
	sys, pub := metav1.NamespaceSystem, metav1.NamespacePublic
	authReader := roleBinding(sys, "extension-apiserver-authentication-reader",
		userSubject(kubeControllerManager), userSubject(kubeScheduler))
	authReader.Name = "system::extension-apiserver-authentication-reader"
	return map[string][]rbacv1.RoleBinding{
		sys: {
			authReader,
			roleBinding(sys, "system::leader-locking-kube-controller-manager",
				userSubject(kubeControllerManager),
				serviceAccount(sys, "kube-controller-manager"),
				serviceAccount(sys, "leader-election-controller")),
			roleBinding(sys, "system::leader-locking-kube-scheduler",
				userSubject(kubeScheduler), serviceAccount(sys, "kube-scheduler")),
			roleBinding(sys, ControllerRolePrefix+"bootstrap-signer", serviceAccount(sys, "bootstrap-signer")),
			roleBinding(sys, ControllerRolePrefix+"cloud-provider", serviceAccount(sys, "cloud-provider")),
			roleBinding(sys, ControllerRolePrefix+"token-cleaner", serviceAccount(sys, "token-cleaner")),
		},
		pub: {
			roleBinding(pub, ControllerRolePrefix+"bootstrap-signer", serviceAccount(sys, "bootstrap-signer")),
		},
	}
}
