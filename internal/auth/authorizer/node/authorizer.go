// Package node is the Node authorizer: it lets a kubelet (user
// "system:node:<name>" in group "system:nodes") read the secrets, config
// maps, volumes, claims and service accounts of the pods bound to its node,
// write its own Node, Lease and CSINode, and otherwise do what NodeRules
// allow. Relationships are found on demand from the pod and persistent
// volume informers rather than from a maintained graph; the
// NodeRestriction admission plugin checks what it cannot (object contents).
package node

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	coreinformers "k8s.io/client-go/informers/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

// Identity names and groups of kubelets.
const (
	NodeUserPrefix = "system:node:"
	NodesGroup     = "system:nodes"
	// NodeLeaseNamespace holds the nodes' heartbeat leases.
	NodeLeaseNamespace = "kube-node-lease"
)

// Identity returns the node name of a kubelet identity, and whether u is
// one. A node user whose name is empty after the prefix is a node with an
// unknown name ("", true).
func Identity(u user.Info) (string, bool) {
	if u == nil {
		return "", false
	}
	name, ok := strings.CutPrefix(u.GetName(), NodeUserPrefix)
	if !ok {
		return "", false
	}
	for _, g := range u.GetGroups() {
		if g == NodesGroup {
			return name, true
		}
	}
	return "", false
}

const (
	podsByNode = "spec.nodeName"
	pvsByClaim = "spec.claimRef"
)

// Authorizer is the Node authorizer.
type Authorizer struct {
	pods      corelisters.PodLister
	podIndex  cache.Indexer
	pvs       corelisters.PersistentVolumeLister
	pvIndex   cache.Indexer
	nodeRules []rbacv1.PolicyRule
}

var _ authorizer.Authorizer = (*Authorizer)(nil)

// New returns the Node authorizer over the given informers, which the
// caller starts. It adds indexes to them, so it must be called before they
// start.
func New(pods coreinformers.PodInformer, pvs coreinformers.PersistentVolumeInformer, nodeRules []rbacv1.PolicyRule) authorizer.Authorizer {
	a := &Authorizer{pods: pods.Lister(), pvs: pvs.Lister(), nodeRules: nodeRules}
	podInf, pvInf := pods.Informer(), pvs.Informer()
	// AddIndexers fails once an informer runs or when the index exists;
	// without an index the lookups fall back to scanning.
	if err := podInf.AddIndexers(cache.Indexers{podsByNode: indexPodByNode}); err == nil || hasIndex(podInf.GetIndexer(), podsByNode) {
		a.podIndex = podInf.GetIndexer()
	}
	if err := pvInf.AddIndexers(cache.Indexers{pvsByClaim: indexPVByClaim}); err == nil || hasIndex(pvInf.GetIndexer(), pvsByClaim) {
		a.pvIndex = pvInf.GetIndexer()
	}
	return a
}

func hasIndex(i cache.Indexer, name string) bool {
	_, ok := i.GetIndexers()[name]
	return ok
}

func indexPodByNode(obj any) ([]string, error) {
	if p, ok := obj.(*corev1.Pod); ok && p.Spec.NodeName != "" {
		return []string{p.Spec.NodeName}, nil
	}
	return nil, nil
}

func indexPVByClaim(obj any) ([]string, error) {
	if pv, ok := obj.(*corev1.PersistentVolume); ok && pv.Spec.ClaimRef != nil {
		return []string{pv.Spec.ClaimRef.Namespace + "/" + pv.Spec.ClaimRef.Name}, nil
	}
	return nil, nil
}

var (
	secrets        = schema.GroupResource{Resource: "secrets"}
	configMaps     = schema.GroupResource{Resource: "configmaps"}
	claims         = schema.GroupResource{Resource: "persistentvolumeclaims"}
	volumes        = schema.GroupResource{Resource: "persistentvolumes"}
	accounts       = schema.GroupResource{Resource: "serviceaccounts"}
	nodes          = schema.GroupResource{Resource: "nodes"}
	pods           = schema.GroupResource{Resource: "pods"}
	leases         = schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}
	csiNodes       = schema.GroupResource{Group: "storage.k8s.io", Resource: "csinodes"}
	attachments    = schema.GroupResource{Group: "storage.k8s.io", Resource: "volumeattachments"}
	resourceClaims = schema.GroupResource{Group: "resource.k8s.io", Resource: "resourceclaims"}
	resourceSlices = schema.GroupResource{Group: "resource.k8s.io", Resource: "resourceslices"}
)

// Authorize decides kubelet requests; anyone else gets no opinion.
func (z *Authorizer) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	nodeName, isNode := Identity(a.User)
	if !isNode {
		return authorizer.DecisionNoOpinion, "", nil
	}
	if nodeName == "" {
		return authorizer.DecisionNoOpinion, "unknown node", nil
	}
	if a.ResourceRequest {
		switch (schema.GroupResource{Group: a.APIGroup, Resource: a.Resource}) {
		case secrets:
			return z.readNamespaced(nodeName, a, z.podUsesSecret)
		case configMaps:
			return z.readNamespaced(nodeName, a, z.podUsesConfigMap)
		case claims:
			if a.Subresource == "status" {
				return z.statusUpdate(nodeName, a, z.nodeUsesClaim)
			}
			return z.get(nodeName, a, z.nodeUsesClaim)
		case volumes:
			return z.get(nodeName, a, z.nodeUsesVolume)
		case resourceClaims:
			return z.get(nodeName, a, z.nodeUsesResourceClaim)
		case attachments:
			// No informer for attachments here: nothing can be proven.
			return z.get(nodeName, a, func(string, string, string) bool { return false })
		case accounts:
			if a.Subresource == "" {
				return z.get(nodeName, a, z.nodeUsesAccount)
			}
			return z.createToken(nodeName, a)
		case leases:
			return ownObject(nodeName, a, "a node lease", true)
		case csiNodes:
			return ownObject(nodeName, a, "a CSINode", false)
		case resourceSlices:
			return resourceSlice(a)
		case nodes:
			return authorizeNode(nodeName, a)
		case pods:
			if d, reason, done := z.authorizePod(nodeName, a); done {
				return d, reason, nil
			}
		}
	}
	if rulesAllow(a, z.nodeRules) {
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionNoOpinion, "", nil
}

// related decides whether an object (namespace, name) is linked to the node.
type related func(nodeName, namespace, name string) bool

func noRelationship(nodeName string) (authorizer.Decision, string, error) {
	return authorizer.DecisionNoOpinion, fmt.Sprintf("no relationship found between node '%s' and this object", nodeName), nil
}

func (z *Authorizer) check(nodeName string, a authorizer.Attributes, rel related) (authorizer.Decision, string, error) {
	if a.Name == "" {
		return authorizer.DecisionNoOpinion, "No Object name found", nil
	}
	if !rel(nodeName, a.Namespace, a.Name) {
		return noRelationship(nodeName)
	}
	return authorizer.DecisionAllow, "", nil
}

// readNamespaced allows get, list and watch of one named object (list and
// watch name it through a metadata.name field selector).
func (z *Authorizer) readNamespaced(nodeName string, a authorizer.Attributes, rel related) (authorizer.Decision, string, error) {
	switch {
	case a.Verb != "get" && a.Verb != "list" && a.Verb != "watch":
		return authorizer.DecisionNoOpinion, "can only read resources of this type", nil
	case a.Subresource != "":
		return authorizer.DecisionNoOpinion, "cannot read subresource", nil
	case a.Namespace == "":
		return authorizer.DecisionNoOpinion, "can only read namespaced object of this type", nil
	}
	return z.check(nodeName, a, rel)
}

func (z *Authorizer) get(nodeName string, a authorizer.Attributes, rel related) (authorizer.Decision, string, error) {
	switch {
	case a.Verb != "get":
		return authorizer.DecisionNoOpinion, "can only get individual resources of this type", nil
	case a.Subresource != "":
		return authorizer.DecisionNoOpinion, "cannot get subresource", nil
	}
	return z.check(nodeName, a, rel)
}

func (z *Authorizer) statusUpdate(nodeName string, a authorizer.Attributes, rel related) (authorizer.Decision, string, error) {
	switch {
	case a.Verb != "update" && a.Verb != "patch":
		return authorizer.DecisionNoOpinion, "can only get/update/patch this type", nil
	case a.Subresource != "status":
		return authorizer.DecisionNoOpinion, "can only update status subresource", nil
	}
	return z.check(nodeName, a, rel)
}

func (z *Authorizer) createToken(nodeName string, a authorizer.Attributes) (authorizer.Decision, string, error) {
	switch {
	case a.Verb != "create" || a.Name == "":
		return authorizer.DecisionNoOpinion, "can only create tokens for individual service accounts", nil
	case a.Subresource != "token":
		return authorizer.DecisionNoOpinion, "can only create token subresource of serviceaccount", nil
	}
	return z.check(nodeName, a, z.nodeUsesAccount)
}

// ownObject allows get, create, update, patch and delete of the object
// named after the node (leases only in kube-node-lease). The name is not
// known at create; NodeRestriction checks it there.
func ownObject(nodeName string, a authorizer.Attributes, what string, isLease bool) (authorizer.Decision, string, error) {
	switch a.Verb {
	case "get", "create", "update", "patch", "delete":
	default:
		return authorizer.DecisionNoOpinion, "can only get, create, update, patch, or delete " + what, nil
	}
	kind := "CSINode"
	if isLease {
		kind = "node lease"
		if a.Namespace != NodeLeaseNamespace {
			return authorizer.DecisionNoOpinion, fmt.Sprintf("can only access leases in the %q system namespace", NodeLeaseNamespace), nil
		}
	} else if a.Subresource != "" {
		return authorizer.DecisionNoOpinion, "cannot authorize CSINode subresources", nil
	}
	if a.Verb != "create" && a.Name != nodeName {
		return authorizer.DecisionNoOpinion, "can only access " + kind + " with the same name as the requesting node", nil
	}
	return authorizer.DecisionAllow, "", nil
}

// resourceSlice allows the DRA verbs; NodeRestriction keeps writes to the
// node's own slices, since no slice informer is consulted here.
func resourceSlice(a authorizer.Attributes) (authorizer.Decision, string, error) {
	if a.Subresource != "" {
		return authorizer.DecisionNoOpinion, "cannot authorize ResourceSlice subresources", nil
	}
	switch a.Verb {
	case "get", "watch", "list", "create", "update", "patch", "delete", "deletecollection":
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionNoOpinion, "only the following verbs are allowed for a ResourceSlice: get, watch, list, create, update, patch, delete, deletecollection", nil
}

func authorizeNode(nodeName string, a authorizer.Attributes) (authorizer.Decision, string, error) {
	switch a.Subresource {
	case "":
		switch a.Verb {
		case "create", "update", "patch":
			// NodeRestriction limits these to the node's own object.
			return authorizer.DecisionAllow, "", nil
		case "get", "list", "watch":
			// By name rather than graph, so a kubelet can look before registering.
			switch a.Name {
			case nodeName:
				return authorizer.DecisionAllow, "", nil
			case "":
				return authorizer.DecisionNoOpinion, fmt.Sprintf("node '%s' cannot read all nodes, only its own Node object", nodeName), nil
			default:
				return authorizer.DecisionNoOpinion, fmt.Sprintf("node '%s' cannot read '%s', only its own Node object", nodeName, a.Name), nil
			}
		}
	case "status":
		if a.Verb == "update" || a.Verb == "patch" {
			return authorizer.DecisionAllow, "", nil
		}
	}
	return authorizer.DecisionNoOpinion, "", nil
}

// authorizePod decides pod requests; done=false defers to NodeRules (list
// and watch: kapi's attributes carry no field selector to narrow them).
func (z *Authorizer) authorizePod(nodeName string, a authorizer.Attributes) (authorizer.Decision, string, bool) {
	switch {
	case a.Subresource == "" && a.Verb == "get":
		d, reason, _ := z.get(nodeName, a, z.podOnNode)
		return d, reason, true
	case a.Subresource == "" && (a.Verb == "list" || a.Verb == "watch"):
		return 0, "", false
	case a.Subresource == "" && (a.Verb == "create" || a.Verb == "delete"),
		a.Subresource == "status" && (a.Verb == "update" || a.Verb == "patch"),
		a.Subresource == "eviction" && a.Verb == "create":
		// Mirror pods, status and evictions; NodeRestriction limits them to
		// the node's own pods.
		return authorizer.DecisionAllow, "", true
	}
	return authorizer.DecisionNoOpinion, "", true
}
