package bootstrappolicy

import rbacv1 "k8s.io/api/rbac/v1"

// systemRoles are the roles of the cluster's own components: kubelets,
// kube-proxy, the scheduler, the controller manager, DNS, and the
// certificate and discovery helpers.
func systemRoles() []rbacv1.ClusterRole {
	return []rbacv1.ClusterRole{
		clusterRole("system:heapster",
			can(read...).in(core).on("events", "pods", "nodes", "namespaces"),
			can(read...).in(extensions).on("deployments")),
		{ObjectMeta: defaultMeta("system:node", "", nil), Rules: NodeRules()},
		// Not bound by default: where node-problem-detector runs varies.
		clusterRole("system:node-problem-detector",
			can("get").in(core).on("nodes"),
			can("patch").in(core).on("nodes/status"),
			eventsRule()),
		clusterRole("system:kubelet-api-admin",
			can("get", "list", "watch").in(core).on("nodes"),
			can("proxy").in(core).on("nodes"),
			can("*").in(core).on("nodes/proxy", "nodes/metrics", "nodes/stats", "nodes/log"),
			can("*").in(core).on("nodes/pods", "nodes/healthz", "nodes/configz")),
		clusterRole("system:node-bootstrapper",
			can("create", "get", "list", "watch").in(certificates).on("certificatesigningrequests")),
		clusterRole("system:auth-delegator",
			can("create").in(authn).on("tokenreviews"),
			can("create").in(authz).on("subjectaccessreviews")),
		clusterRole("system:kube-aggregator",
			can(read...).in(core).on("services", "endpoints")),
		clusterRole("system:kube-controller-manager", kubeControllerManagerRules()...),
		clusterRole("system:kube-dns",
			can("list", "watch").in(core).on("endpoints", "services")),
		clusterRole("system:persistent-volume-provisioner",
			can("get", "list", "watch", "create", "delete").in(core).on("persistentvolumes"),
			// update sets lock annotations on claims.
			can("get", "list", "watch", "update").in(core).on("persistentvolumeclaims"),
			can(read...).in(storage).on("storageclasses"),
			can("watch").in(core).on("events"),
			eventsRule()),
		clusterRole("system:certificates.k8s.io:certificatesigningrequests:nodeclient",
			can("create").in(certificates).on("certificatesigningrequests/nodeclient")),
		clusterRole("system:certificates.k8s.io:certificatesigningrequests:selfnodeclient",
			can("create").in(certificates).on("certificatesigningrequests/selfnodeclient")),
		clusterRole("system:volume-scheduler",
			can(readUpdate...).in(core).on("persistentvolumes"),
			can(read...).in(storage).on("storageclasses"),
			can(readUpdate...).in(core).on("persistentvolumeclaims")),
		clusterRole("system:certificates.k8s.io:legacy-unknown-approver",
			can("approve").in(certificates).on("signers").named(legacyUnknownSigner)),
		clusterRole("system:certificates.k8s.io:kubelet-serving-approver",
			can("approve").in(certificates).on("signers").named(kubeletServingSigner)),
		clusterRole("system:certificates.k8s.io:kube-apiserver-client-approver",
			can("approve").in(certificates).on("signers").named(kubeAPIServerClientSigner)),
		clusterRole("system:certificates.k8s.io:kube-apiserver-client-kubelet-approver",
			can("approve").in(certificates).on("signers").named(kubeAPIServerClientKubeletSigner)),
		// Trailing-slash forms serve clients generated from older OpenAPI.
		clusterRole("system:service-account-issuer-discovery",
			can("get").urls("/.well-known/openid-configuration", "/.well-known/openid-configuration/",
				"/openid/v1/jwks", "/openid/v1/jwks/")),
		clusterRole("system:node-proxier",
			can("list", "watch").in(core).on("services", "endpoints"),
			can("get", "list", "watch").in(core).on("nodes"),
			eventsRule(),
			can("list", "watch").in(networking).on("servicecidrs"),
			can("list", "watch").in(discovery).on("endpointslices")),
		clusterRole("system:kube-scheduler", kubeSchedulerRules()...),
	}
}

func kubeControllerManagerRules() []rule {
	return []rule{
		eventsRule(),
		// Leader election.
		can("create").in(coordination).on("leases"),
		can("get", "update").in(coordination).on("leases").named("kube-controller-manager"),
		// Identities for the controllers.
		can("create").in(core).on("secrets", "serviceaccounts"),
		can("delete").in(core).on("secrets"),
		can("get").in(core).on("namespaces", "secrets", "serviceaccounts", "configmaps"),
		can("update").in(core).on("secrets", "serviceaccounts"),
		can("create").in(authn).on("tokenreviews"),
		can("create").in(authz).on("subjectaccessreviews"),
		// Shared informers.
		can("list", "watch").in("*").on("*"),
		can("create").in(core).on("serviceaccounts/token"),
	}
}

func kubeSchedulerRules() []rule {
	return []rule{
		eventsRule(),
		can("create").in(coordination).on("leases"),
		can("get", "update").in(coordination).on("leases").named("kube-scheduler"),
		can(read...).in(core).on("nodes"),
		can("get", "list", "watch", "delete").in(core).on("pods"),
		can("create").in(core).on("pods/binding", "bindings"),
		can("patch", "update").in(core).on("pods/status"),
		// What selects pods.
		can(read...).in(core).on("services", "replicationcontrollers"),
		can(read...).in(apps, extensions).on("replicasets"),
		can(read...).in(apps).on("statefulsets"),
		// What pods use.
		can(read...).in(policyGroup).on("poddisruptionbudgets"),
		can(read...).in(core).on("persistentvolumeclaims", "persistentvolumes"),
		can("create").in(authn).on("tokenreviews"),
		can("create").in(authz).on("subjectaccessreviews"),
		can(read...).in(storage).on("csinodes"),
		// namespaceSelector in pod affinity.
		can(read...).in(core).on("namespaces"),
		can(read...).in(storage).on("csidrivers"),
		can(read...).in(storage).on("csistoragecapacities"),
		// Dynamic resource allocation.
		can(read...).in(resourceGroup).on("resourceclaims", "deviceclasses"),
		can(readUpdate...).in(resourceGroup).on("resourceclaims/status"),
		can(readUpdate...).in(core).on("pods/finalizers"),
		can(read...).in(resourceGroup).on("resourceslices"),
	}
}
