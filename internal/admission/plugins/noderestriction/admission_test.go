package noderestriction

import (
	"context"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourcev1 "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apitypes "k8s.io/apimachinery/pkg/types"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

var nodeA = &user.DefaultInfo{Name: "system:node:node-a", Groups: []string{"system:nodes", user.AllAuthenticated}}

func attrs(op admission.Operation, group, res, sub, ns, name string, obj, old runtime.Object) *admission.Attributes {
	return &admission.Attributes{
		Operation: op, Namespace: ns, Name: name, Subresource: sub,
		Resource: schema.GroupVersionResource{Group: group, Version: "v1", Resource: res},
		Object:   obj, OldObject: old, UserInfo: nodeA,
	}
}

func pod(name, nodeName string, mutate ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: apitypes.UID("uid-" + name)}, Spec: corev1.PodSpec{NodeName: nodeName}}
	for _, m := range mutate {
		m(p)
	}
	return p
}

func mirror(p *corev1.Pod) {
	yes := true
	p.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "x"}
	p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: "node-a", UID: "n", Controller: &yes}}
}

func nodeObj(labels map[string]string, taints ...corev1.Taint) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a", Labels: labels}, Spec: corev1.NodeSpec{Taints: taints}}
}

func tokenRequest(uid, name string) *authenticationv1.TokenRequest {
	return &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
		BoundObjectRef: &authenticationv1.BoundObjectReference{APIVersion: "v1", Kind: "Pod", Name: name, UID: apitypes.UID(uid)},
	}}
}

func pvc(capacity string, labels map[string]string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "data", Labels: labels},
		Status:     corev1.PersistentVolumeClaimStatus{Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(capacity)}},
	}
}

func TestAdmission(t *testing.T) {
	pods := map[string]*corev1.Pod{"mine": pod("mine", "node-a"), "theirs": pod("theirs", "node-b")}
	p := New(func(_ context.Context, ns, name string) (*corev1.Pod, error) {
		if pd, ok := pods[name]; ok && ns == "ns" {
			return pd, nil
		}
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, name)
	})
	nodeB := "node-b"
	nodeAName := "node-a"
	for _, c := range []struct {
		name string
		a    *admission.Attributes
		want string // "" allows; otherwise a substring of the 403 message
	}{
		{"mirror pod", attrs(admission.Create, "", "pods", "", "ns", "", pod("m", "node-a", mirror), nil), ""},
		{"non-mirror pod", attrs(admission.Create, "", "pods", "", "ns", "", pod("m", "node-a"), nil),
			`pods "m" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "node-a" can only create mirror pods`},
		{"mirror pod on other node", attrs(admission.Create, "", "pods", "", "ns", "", pod("m", "node-b", mirror), nil),
			`node "node-a" can only create pods with spec.nodeName set to itself`},
		{"mirror pod without owner", attrs(admission.Create, "", "pods", "", "ns", "", pod("m", "node-a", mirror, func(p *corev1.Pod) { p.OwnerReferences = nil }), nil),
			`node "node-a" can only create pods with an owner reference set to itself`},
		{"mirror pod with secret", attrs(admission.Create, "", "pods", "", "ns", "", pod("m", "node-a", mirror, func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s"}}}}
		}), nil), `node "node-a" can not create pods that reference secrets`},
		{"mirror pod with service account", attrs(admission.Create, "", "pods", "", "ns", "", pod("m", "node-a", mirror, func(p *corev1.Pod) { p.Spec.ServiceAccountName = "sa" }), nil),
			`node "node-a" can not create pods that reference a service account`},
		{"mirror pod with configmap env", attrs(admission.Create, "", "pods", "", "ns", "", pod("m", "node-a", mirror, func(p *corev1.Pod) {
			p.Spec.Containers = []corev1.Container{{EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "c"}}}}}}
		}), nil), `node "node-a" can not create pods that reference configmaps`},
		{"delete own pod", attrs(admission.Delete, "", "pods", "", "ns", "mine", nil, pods["mine"]), ""},
		{"delete other node's pod", attrs(admission.Delete, "", "pods", "", "ns", "theirs", nil, pods["theirs"]),
			`pods "theirs" is forbidden: node "node-a" can only delete pods with spec.nodeName set to itself`},
		{"delete looks the pod up", attrs(admission.Delete, "", "pods", "", "ns", "theirs", nil, nil),
			`node "node-a" can only delete pods with spec.nodeName set to itself`},
		{"update pod", attrs(admission.Update, "", "pods", "", "ns", "mine", pods["mine"], pods["mine"]),
			`unexpected operation "UPDATE", node "node-a" can only create and delete mirror pods`},
		{"own pod status", attrs(admission.Update, "", "pods", "status", "ns", "mine", pods["mine"], pods["mine"]), ""},
		{"other pod status", attrs(admission.Update, "", "pods", "status", "ns", "theirs", pods["theirs"], pods["theirs"]),
			`node "node-a" can only update pod status for pods with spec.nodeName set to itself`},
		{"labels through status", attrs(admission.Update, "", "pods", "status", "ns", "mine",
			pod("mine", "node-a", func(p *corev1.Pod) { p.Labels = map[string]string{"a": "b"} }), pods["mine"]),
			`node "node-a" cannot update labels through pod status`},
		{"exec", attrs(admission.Connect, "", "pods", "exec", "ns", "mine", nil, nil),
			`unexpected subresource "exec", only 'status' and 'eviction' are allowed`},
		{"evict own pod", attrs(admission.Create, "", "pods", "eviction", "ns", "mine", &policyv1.Eviction{}, nil), ""},
		{"evict other pod", attrs(admission.Create, "", "pods", "eviction", "ns", "theirs", &policyv1.Eviction{}, nil),
			`node node-a can only evict pods with spec.nodeName set to itself`},
		{"evict missing pod", attrs(admission.Create, "", "pods", "eviction", "ns", "gone", &policyv1.Eviction{}, nil), `pods "gone" not found`},
		{"create own node", attrs(admission.Create, "", "nodes", "", "", "node-a", nodeObj(map[string]string{"kubernetes.io/hostname": "a", "example.com/x": "y", "node.kubernetes.io/instance-type": "big"}), nil), ""},
		{"create other node", attrs(admission.Create, "", "nodes", "", "", "node-b", nodeObj(nil), nil),
			`nodes "node-b" is forbidden: node "node-a" is not allowed to modify node "node-b"`},
		{"create with restricted labels", attrs(admission.Create, "", "nodes", "", "", "node-a",
			nodeObj(map[string]string{"node-restriction.kubernetes.io/pool": "x", "foo.k8s.io/bar": "y"}), nil),
			`node "node-a" is not allowed to set the following labels: foo.k8s.io/bar, node-restriction.kubernetes.io/pool`},
		{"update status fields", attrs(admission.Update, "", "nodes", "status", "", "node-a", nodeObj(nil), nodeObj(nil)), ""},
		{"update taints", attrs(admission.Update, "", "nodes", "", "", "node-a", nodeObj(nil), nodeObj(nil, corev1.Taint{Key: "k", Effect: corev1.TaintEffectNoSchedule})),
			`node "node-a" is not allowed to modify taints`},
		{"remove restricted label", attrs(admission.Update, "", "nodes", "", "", "node-a", nodeObj(nil), nodeObj(map[string]string{"a.node-restriction.kubernetes.io/x": "y"})),
			`is not allowed to modify labels: a.node-restriction.kubernetes.io/x`},
		{"update other node", attrs(admission.Update, "", "nodes", "", "", "node-b", nodeObj(nil), nodeObj(nil)),
			`node "node-a" is not allowed to modify node "node-b"`},
		{"own lease", attrs(admission.Create, "coordination.k8s.io", "leases", "", "kube-node-lease", "", &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}}, nil), ""},
		{"other lease", attrs(admission.Update, "coordination.k8s.io", "leases", "", "kube-node-lease", "node-b", &coordinationv1.Lease{}, nil),
			`can only access node lease with the same name as the requesting node`},
		{"lease elsewhere", attrs(admission.Create, "coordination.k8s.io", "leases", "", "default", "", &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}}, nil),
			`can only access leases in the "kube-node-lease" system namespace`},
		{"own csinode", attrs(admission.Create, "storage.k8s.io", "csinodes", "", "", "", &storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}}, nil), ""},
		{"other csinode", attrs(admission.Delete, "storage.k8s.io", "csinodes", "", "", "node-b", nil, nil),
			`can only access CSINode with the same name as the requesting node`},
		{"token for own pod", attrs(admission.Create, "", "serviceaccounts", "token", "ns", "sa", tokenRequest("uid-mine", "mine"), nil), ""},
		{"token unbound", attrs(admission.Create, "", "serviceaccounts", "token", "ns", "sa", &authenticationv1.TokenRequest{}, nil),
			`node requested token not bound to a pod`},
		{"token without uid", attrs(admission.Create, "", "serviceaccounts", "token", "ns", "sa", tokenRequest("", "mine"), nil),
			`node requested token with a pod binding without a uid`},
		{"token stale uid", attrs(admission.Create, "", "serviceaccounts", "token", "ns", "sa", tokenRequest("old", "mine"), nil),
			`the UID in the bound object reference (old) does not match the UID in record`},
		{"token other node's pod", attrs(admission.Create, "", "serviceaccounts", "token", "ns", "sa", tokenRequest("uid-theirs", "theirs"), nil),
			`node requested token bound to a pod scheduled on a different node`},
		{"pvc status capacity", attrs(admission.Update, "", "persistentvolumeclaims", "status", "ns", "data", pvc("2Gi", nil), pvc("1Gi", nil)), ""},
		{"pvc status labels", attrs(admission.Update, "", "persistentvolumeclaims", "status", "ns", "data", pvc("1Gi", map[string]string{"a": "b"}), pvc("1Gi", nil)),
			`node "node-a" is not allowed to update fields other than status.capacity and status.conditions`},
		{"pvc spec", attrs(admission.Update, "", "persistentvolumeclaims", "", "ns", "data", pvc("1Gi", nil), pvc("1Gi", nil)), `may only update PVC status`},
		{"own resource slice", attrs(admission.Create, "resource.k8s.io", "resourceslices", "", "", "", &resourcev1.ResourceSlice{Spec: resourcev1.ResourceSliceSpec{NodeName: &nodeAName}}, nil), ""},
		{"other resource slice", attrs(admission.Create, "resource.k8s.io", "resourceslices", "", "", "", &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{GenerateName: "s-"}, Spec: resourcev1.ResourceSliceSpec{NodeName: &nodeB}}, nil),
			`resourceslices.resource.k8s.io "s-" is forbidden: can only create ResourceSlice with the same NodeName as the requesting node`},
		{"delete other resource slice", attrs(admission.Delete, "resource.k8s.io", "resourceslices", "", "", "s", nil, &resourcev1.ResourceSlice{Spec: resourcev1.ResourceSliceSpec{NodeName: &nodeB}}),
			`can only delete ResourceSlice with the same NodeName as the requesting node`},
		{"configmaps are not this plugin's", attrs(admission.Create, "", "configmaps", "", "ns", "x", &corev1.ConfigMap{}, nil), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			for phase, run := range map[string]func(context.Context, *admission.Attributes) error{"admit": p.Admit, "validate": p.Validate} {
				err := run(context.Background(), c.a)
				switch {
				case c.want == "" && err != nil:
					t.Errorf("%s: unexpected error %v", phase, err)
				case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
					t.Errorf("%s: got %v, want error containing %q", phase, err, c.want)
				case c.want != "" && !apierrors.IsForbidden(err) && !apierrors.IsNotFound(err):
					t.Errorf("%s: got %v, want a 403", phase, err)
				}
			}
		})
	}
}

func TestNonNodesAndUnknownNodes(t *testing.T) {
	p := New(nil)
	a := attrs(admission.Create, "", "nodes", "", "", "node-b", nodeObj(nil), nil)
	a.UserInfo = &user.DefaultInfo{Name: "admin", Groups: []string{"system:masters"}}
	if err := p.Admit(context.Background(), a); err != nil {
		t.Errorf("non-node user: %v", err)
	}
	a.UserInfo = &user.DefaultInfo{Name: "system:node:", Groups: []string{"system:nodes"}}
	err := p.Admit(context.Background(), a)
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `could not determine node from user "system:node:"`) {
		t.Errorf("unknown node: %v", err)
	}
}
