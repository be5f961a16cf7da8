package bootstrappolicy

import rbacv1 "k8s.io/api/rbac/v1"

// ControllerRolePrefix starts the name of each controller's role; the rest
// is the name of the kube-system service account it is bound to.
const ControllerRolePrefix = "system:controller:"

// controller is one kube-controller-manager controller's permissions.
type controller struct {
	name  string
	rules []rule
}

// controllers lists the controllers of kube-controller-manager, each run
// under its own service account in kube-system.
func controllers() []controller {
	return []controller{
		{"attachdetach-controller", []rule{
			can("list", "watch").in(core).on("persistentvolumes", "persistentvolumeclaims"),
			can("get", "list", "watch").in(core).on("nodes"),
			can("patch", "update").in(core).on("nodes/status"),
			can("list", "watch").in(core).on("pods"),
			eventsRule(),
			can("get", "create", "delete", "list", "watch").in(storage).on("volumeattachments"),
			can("get", "watch", "list").in(storage).on("csidrivers"),
			can("get", "watch", "list").in(storage).on("csinodes"),
		}},
		{"clusterrole-aggregation-controller", []rule{
			// Full power over cluster roles: it writes any rule it aggregates.
			can("escalate", "get", "list", "watch", "update", "patch").in(rbacGroup).on("clusterroles"),
		}},
		{"cronjob-controller", []rule{
			can("get", "list", "watch", "update").in(batch).on("cronjobs"),
			can("get", "list", "watch", "create", "update", "delete", "patch").in(batch).on("jobs"),
			can("update").in(batch).on("cronjobs/status"),
			can("update").in(batch).on("cronjobs/finalizers"),
			can("list", "watch", "delete").in(core).on("pods"),
			eventsRule(),
		}},
		{"daemon-set-controller", []rule{
			can("get", "list", "watch").in(extensions, apps).on("daemonsets"),
			can("update").in(extensions, apps).on("daemonsets/status"),
			can("update").in(extensions, apps).on("daemonsets/finalizers"),
			can("list", "watch").in(core).on("nodes"),
			can("list", "watch", "create", "delete", "patch").in(core).on("pods"),
			can("create").in(core).on("pods/binding"),
			can("get", "list", "watch", "create", "delete", "update", "patch").in(apps).on("controllerrevisions"),
			eventsRule(),
		}},
		{"deployment-controller", []rule{
			can("get", "list", "watch", "update").in(extensions, apps).on("deployments"),
			can("update").in(extensions, apps).on("deployments/status"),
			can("update").in(extensions, apps).on("deployments/finalizers"),
			can("get", "list", "watch", "create", "update", "patch", "delete").in(apps, extensions).on("replicasets"),
			can("get", "list", "watch", "update").in(core).on("pods"),
			eventsRule(),
		}},
		{"disruption-controller", []rule{
			can("get", "list", "watch").in(extensions, apps).on("deployments"),
			can("get", "list", "watch").in(apps, extensions).on("replicasets"),
			can("get", "list", "watch").in(core).on("replicationcontrollers"),
			can("get", "list", "watch").in(policyGroup).on("poddisruptionbudgets"),
			can("get", "list", "watch").in(apps).on("statefulsets"),
			can("update").in(policyGroup).on("poddisruptionbudgets/status"),
			can("patch", "update").in(core).on("pods/status"),
			can("get").in("*").on("*/scale"),
			eventsRule(),
		}},
		{"endpoint-controller", []rule{
			can("get", "list", "watch").in(core).on("services", "pods"),
			can("get", "list", "watch", "create", "update", "delete").in(core).on("endpoints"),
			eventsRule(),
		}},
		{"endpointslice-controller", []rule{
			can("get", "list", "watch").in(core).on("services", "pods", "nodes"),
			// Owner references with blockOwnerDeletion need the finalizers subresource.
			can("update").in(core).on("services/finalizers"),
			can("get", "list", "watch", "create", "update", "delete").in(discovery).on("endpointslices"),
			eventsRule(),
		}},
		{"endpointslicemirroring-controller", []rule{
			can("get", "list", "watch").in(core).on("services", "endpoints"),
			can("update").in(core).on("services/finalizers"),
			can("update").in(core).on("endpoints/finalizers"),
			can("get", "list", "watch", "create", "update", "delete").in(discovery).on("endpointslices"),
			eventsRule(),
		}},
		{"expand-controller", []rule{
			can("get", "list", "watch", "update", "patch").in(core).on("persistentvolumes"),
			can("update", "patch").in(core).on("persistentvolumeclaims/status"),
			can("get", "list", "watch").in(core).on("persistentvolumeclaims"),
			eventsRule(),
		}},
		{"ephemeral-volume-controller", []rule{
			can("get", "list", "watch").in(core).on("pods"),
			can("update").in(core).on("pods/finalizers"),
			can("get", "list", "watch", "create").in(core).on("persistentvolumeclaims"),
			eventsRule(),
		}},
		{"resource-claim-controller", []rule{
			can("get", "list", "watch").in(core).on("pods"),
			can("update").in(core).on("pods/finalizers"),
			can("get", "list", "watch", "create", "delete").in(resourceGroup).on("resourceclaims"),
			can("update", "patch").in(resourceGroup).on("resourceclaims", "resourceclaims/status"),
			can("update", "patch").in(core).on("pods/status"),
			eventsRule(),
		}},
		{"generic-garbage-collector", []rule{
			can("get", "list", "watch", "patch", "update", "delete").in("*").on("*"),
			eventsRule(),
		}},
		{"horizontal-pod-autoscaler", []rule{
			can("get", "list", "watch").in(autoscaling).on("horizontalpodautoscalers"),
			can("update").in(autoscaling).on("horizontalpodautoscalers/status"),
			can("get", "update").in("*").on("*/scale"),
			can("list", "watch").in(core).on("pods"),
			can("list", "watch").in(metricsGroup).on("pods"),
			can("get", "list", "watch").in(customMetrics).on("*"),
			can("get", "list", "watch").in(extMetrics).on("*"),
			eventsRule(),
		}},
		{"job-controller", []rule{
			can("get", "list", "watch", "update", "patch").in(batch).on("jobs"),
			can("update").in(batch).on("jobs/status"),
			can("update").in(batch).on("jobs/finalizers"),
			can("list", "watch", "create", "delete", "patch").in(core).on("pods"),
			eventsRule(),
		}},
		{"namespace-controller", []rule{
			can("get", "list", "watch", "delete").in(core).on("namespaces"),
			can("update").in(core).on("namespaces/finalize", "namespaces/status"),
			can("get", "list", "watch", "delete", "deletecollection").in("*").on("*"),
		}},
		{"node-controller", []rule{
			can("get", "list", "watch", "update", "delete", "patch").in(core).on("nodes"),
			can("patch", "update").in(core).on("nodes/status"),
			can("patch", "update").in(core).on("pods/status"),
			can("list", "watch", "get", "delete").in(core).on("pods"),
			can("get", "list", "watch").in(coordination).on("leases"),
			eventsRule(),
		}},
		{"persistent-volume-binder", []rule{
			can("get", "list", "watch", "update", "create", "delete").in(core).on("persistentvolumes"),
			can("update").in(core).on("persistentvolumes/status"),
			can("get", "list", "watch", "update").in(core).on("persistentvolumeclaims"),
			can("update").in(core).on("persistentvolumeclaims/status"),
			can("list", "watch", "get", "create", "delete").in(core).on("pods"),
			can("get", "list", "watch").in(storage).on("storageclasses"),
			can("list", "watch").in(core).on("nodes"),
			eventsRule(),
			// The recycler watches its pod's events.
			can("watch").in(core).on("events"),
		}},
		{"pod-garbage-collector", []rule{
			can("list", "watch", "delete").in(core).on("pods"),
			can("get", "list", "watch").in(core).on("nodes"),
			can("patch").in(core).on("pods/status"),
		}},
		{"replicaset-controller", []rule{
			can("get", "list", "watch", "update").in(apps, extensions).on("replicasets"),
			can("update").in(apps, extensions).on("replicasets/status"),
			can("update").in(apps, extensions).on("replicasets/finalizers"),
			can("list", "watch", "patch", "create", "delete").in(core).on("pods"),
			eventsRule(),
		}},
		{"replication-controller", []rule{
			can("get", "list", "watch", "update").in(core).on("replicationcontrollers"),
			can("update").in(core).on("replicationcontrollers/status"),
			can("update").in(core).on("replicationcontrollers/finalizers"),
			can("list", "watch", "patch", "create", "delete").in(core).on("pods"),
			eventsRule(),
		}},
		{"resourcequota-controller", []rule{
			// Quota counts anything, so it reads everything.
			can("list", "watch").in("*").on("*"),
			can("update").in(core).on("resourcequotas/status"),
			eventsRule(),
		}},
		{"route-controller", []rule{
			can("list", "watch").in(core).on("nodes"),
			can("patch").in(core).on("nodes/status"),
			eventsRule(),
		}},
		{"service-account-controller", []rule{
			can("create").in(core).on("serviceaccounts"),
			eventsRule(),
		}},
		{"service-controller", []rule{
			can("get", "list", "watch").in(core).on("services"),
			can("patch", "update").in(core).on("services/status"),
			can("list", "watch").in(core).on("nodes"),
			eventsRule(),
		}},
		{"service-cidrs-controller", []rule{
			can("get", "list", "watch", "patch", "update").in(networking).on("servicecidrs"),
			can("patch", "update").in(networking).on("servicecidrs/finalizers"),
			can("patch", "update").in(networking).on("servicecidrs/status"),
			can("get", "list", "watch").in(networking).on("ipaddresses"),
			eventsRule(),
		}},
		{"statefulset-controller", []rule{
			can("list", "watch").in(core).on("pods"),
			can("get", "list", "watch").in(apps).on("statefulsets"),
			can("update").in(apps).on("statefulsets/status"),
			can("update").in(apps).on("statefulsets/finalizers"),
			can("get", "create", "delete", "update", "patch").in(core).on("pods"),
			can("get", "create", "delete", "update", "patch", "list", "watch").in(apps).on("controllerrevisions"),
			can("get", "create", "list", "watch").in(core).on("persistentvolumeclaims"),
			can("update", "delete").in(core).on("persistentvolumeclaims"),
			can("update").in(core).on("pods/finalizers"),
			eventsRule(),
		}},
		{"ttl-controller", []rule{
			can("update", "patch", "list", "watch").in(core).on("nodes"),
			eventsRule(),
		}},
		{"certificate-controller", []rule{
			can("get", "list", "watch", "delete").in(certificates).on("certificatesigningrequests"),
			can("update").in(certificates).on("certificatesigningrequests/status", "certificatesigningrequests/approval"),
			can("approve").in(certificates).on("signers").named(kubeAPIServerClientKubeletSigner),
			can("sign").in(certificates).on("signers").named(legacyUnknownSigner, kubeAPIServerClientSigner,
				kubeAPIServerClientKubeletSigner, kubeletServingSigner),
			can("create").in(authz).on("subjectaccessreviews"),
			eventsRule(),
		}},
		{"pvc-protection-controller", []rule{
			can("get", "list", "watch", "update").in(core).on("persistentvolumeclaims"),
			can("update").in(core).on("persistentvolumeclaims/status"),
			can("list", "watch", "get").in(core).on("pods"),
			eventsRule(),
		}},
		{"pv-protection-controller", []rule{
			can("get", "list", "watch", "update").in(core).on("persistentvolumes"),
			eventsRule(),
		}},
		{"volumeattributesclass-protection-controller", []rule{
			can("list", "watch", "get").in(core).on("persistentvolumeclaims"),
			can("list", "watch", "get").in(core).on("persistentvolumes"),
			can("get", "list", "watch", "update").in(storage).on("volumeattributesclasses"),
			eventsRule(),
		}},
		{"ttl-after-finished-controller", []rule{
			can("get", "list", "watch", "delete").in(batch).on("jobs"),
			eventsRule(),
		}},
		{"root-ca-cert-publisher", []rule{
			can("create", "update").in(core).on("configmaps"),
			eventsRule(),
		}},
		{"validatingadmissionpolicy-status-controller", []rule{
			can("get", "list", "watch").in(admissionreg).on("validatingadmissionpolicies"),
			can("get", "patch", "update").in(admissionreg).on("validatingadmissionpolicies/status"),
			eventsRule(),
		}},
		{"legacy-service-account-token-cleaner", []rule{
			can("get").in(core).on("configmaps").named("kube-apiserver-legacy-service-account-token-tracking"),
			can("patch", "delete").in(core).on("secrets"),
		}},
		{"selinux-warning-controller", []rule{
			eventsRule(),
			can("get", "list", "watch").in(core).on("persistentvolumes"),
			can("get", "list", "watch").in(core).on("persistentvolumeclaims"),
			can("get", "list", "watch").in(core).on("pods"),
			can("get", "list", "watch").in(storage).on("csidrivers"),
		}},
	}
}

func controllerRoles() []rbacv1.ClusterRole {
	cs := controllers()
	out := make([]rbacv1.ClusterRole, len(cs))
	for i, c := range cs {
		out[i] = clusterRole(ControllerRolePrefix+c.name, c.rules...)
	}
	return out
}

// controllerRoleBindings binds each controller role to the kube-system
// service account named after the controller.
func controllerRoleBindings() []rbacv1.ClusterRoleBinding {
	cs := controllers()
	out := make([]rbacv1.ClusterRoleBinding, len(cs))
	for i, c := range cs {
		out[i] = clusterBinding(ControllerRolePrefix+c.name, serviceAccount("kube-system", c.name))
	}
	return out
}
