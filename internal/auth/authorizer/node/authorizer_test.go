package node

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/authorizer/rbac/bootstrappolicy"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

func nodeUser(name string) user.Info {
	return &user.DefaultInfo{Name: NodeUserPrefix + name, Groups: []string{NodesGroup, user.AllAuthenticated}}
}

// newTestAuthorizer builds the authorizer over unstarted informers whose
// stores are filled directly, so the test needs no goroutines.
func newTestAuthorizer(t testing.TB, objs ...any) authorizer.Authorizer {
	t.Helper()
	f := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	pods, pvs := f.Core().V1().Pods(), f.Core().V1().PersistentVolumes()
	a := New(pods, pvs, bootstrappolicy.NodeRules())
	for _, o := range objs {
		var err error
		switch o := o.(type) {
		case *corev1.Pod:
			err = pods.Informer().GetIndexer().Add(o)
		case *corev1.PersistentVolume:
			err = pvs.Informer().GetIndexer().Add(o)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return a
}

func testPod() *corev1.Pod {
	claim := "gpu-claim"
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"},
		Spec: corev1.PodSpec{
			NodeName:           "node-a",
			ServiceAccountName: "web-sa",
			ImagePullSecrets:   []corev1.LocalObjectReference{{Name: "pull"}},
			Containers: []corev1.Container{{
				Name: "c",
				Env: []corev1.EnvVar{{Name: "X", ValueFrom: &corev1.EnvVarSource{
					SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "env-secret"}, Key: "k"},
				}}},
				EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "env-cm"}}}},
			}},
			Volumes: []corev1.Volume{
				{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "vol-secret"}}},
				{Name: "cm", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "vol-cm"}}}},
				{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}},
				{Name: "scratch", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{}}},
			},
			ResourceClaims: []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimName: &claim}},
		},
	}
}

func testPV() *corev1.PersistentVolume {
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pv-data"},
		Spec: corev1.PersistentVolumeSpec{
			ClaimRef: &corev1.ObjectReference{Namespace: "ns", Name: "data"},
			PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{
				Driver: "d", VolumeHandle: "h", NodePublishSecretRef: &corev1.SecretReference{Namespace: "csi", Name: "csi-secret"},
			}},
		},
	}
}

func res(verb, group, resource, sub, ns, name string) authorizer.Attributes {
	return authorizer.Attributes{Verb: verb, APIGroup: group, Resource: resource, Subresource: sub, Namespace: ns, Name: name, ResourceRequest: true}
}

func TestAuthorize(t *testing.T) {
	other := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "db"}, Spec: corev1.PodSpec{
		NodeName: "node-b",
		Volumes:  []corev1.Volume{{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "db-secret"}}}},
	}}
	z := newTestAuthorizer(t, testPod(), other, testPV())
	allow, none := authorizer.DecisionAllow, authorizer.DecisionNoOpinion
	noRel := func(n string) string {
		return fmt.Sprintf("no relationship found between node '%s' and this object", n)
	}
	for _, c := range []struct {
		name   string
		user   user.Info
		attrs  authorizer.Attributes
		want   authorizer.Decision
		reason string
	}{
		{"pull secret", nodeUser("node-a"), res("get", "", "secrets", "", "ns", "pull"), allow, ""},
		{"env secret", nodeUser("node-a"), res("get", "", "secrets", "", "ns", "env-secret"), allow, ""},
		{"volume secret watched by name", nodeUser("node-a"), res("watch", "", "secrets", "", "ns", "vol-secret"), allow, ""},
		{"pv csi secret", nodeUser("node-a"), res("get", "", "secrets", "", "csi", "csi-secret"), allow, ""},
		{"other node's pod secret", nodeUser("node-a"), res("get", "", "secrets", "", "ns", "db-secret"), none, noRel("node-a")},
		{"node b cannot read node a's secret", nodeUser("node-b"), res("get", "", "secrets", "", "ns", "pull"), none, noRel("node-b")},
		{"same name other namespace", nodeUser("node-a"), res("get", "", "secrets", "", "other", "pull"), none, noRel("node-a")},
		{"list all secrets", nodeUser("node-a"), res("list", "", "secrets", "", "ns", ""), none, "No Object name found"},
		{"write secret", nodeUser("node-a"), res("update", "", "secrets", "", "ns", "pull"), none, "can only read resources of this type"},
		{"cluster-wide secret read", nodeUser("node-a"), res("get", "", "secrets", "", "", "pull"), none, "can only read namespaced object of this type"},
		{"env configmap", nodeUser("node-a"), res("get", "", "configmaps", "", "ns", "env-cm"), allow, ""},
		{"volume configmap", nodeUser("node-a"), res("get", "", "configmaps", "", "ns", "vol-cm"), allow, ""},
		{"node b configmap", nodeUser("node-b"), res("get", "", "configmaps", "", "ns", "vol-cm"), none, noRel("node-b")},
		{"pvc", nodeUser("node-a"), res("get", "", "persistentvolumeclaims", "", "ns", "data"), allow, ""},
		{"ephemeral pvc", nodeUser("node-a"), res("get", "", "persistentvolumeclaims", "", "ns", "web-scratch"), allow, ""},
		{"pvc status", nodeUser("node-a"), res("patch", "", "persistentvolumeclaims", "status", "ns", "data"), allow, ""},
		{"pvc list", nodeUser("node-a"), res("list", "", "persistentvolumeclaims", "", "ns", ""), none, "can only get individual resources of this type"},
		{"pv", nodeUser("node-a"), res("get", "", "persistentvolumes", "", "", "pv-data"), allow, ""},
		{"pv node b", nodeUser("node-b"), res("get", "", "persistentvolumes", "", "", "pv-data"), none, noRel("node-b")},
		{"resource claim", nodeUser("node-a"), res("get", "resource.k8s.io", "resourceclaims", "", "ns", "gpu-claim"), allow, ""},
		{"token", nodeUser("node-a"), res("create", "", "serviceaccounts", "token", "ns", "web-sa"), allow, ""},
		{"token node b", nodeUser("node-b"), res("create", "", "serviceaccounts", "token", "ns", "web-sa"), none, noRel("node-b")},
		{"service account get", nodeUser("node-a"), res("get", "", "serviceaccounts", "", "ns", "web-sa"), allow, ""},
		{"own node get", nodeUser("node-a"), res("get", "", "nodes", "", "", "node-a"), allow, ""},
		{"own node update", nodeUser("node-a"), res("update", "", "nodes", "", "", "node-a"), allow, ""},
		{"own node status", nodeUser("node-a"), res("patch", "", "nodes", "status", "", "node-a"), allow, ""},
		{"other node get", nodeUser("node-a"), res("get", "", "nodes", "", "", "node-b"), none, "node 'node-a' cannot read 'node-b', only its own Node object"},
		{"all nodes", nodeUser("node-a"), res("list", "", "nodes", "", "", ""), none, "node 'node-a' cannot read all nodes, only its own Node object"},
		{"delete node", nodeUser("node-a"), res("delete", "", "nodes", "", "", "node-a"), none, ""},
		{"own lease", nodeUser("node-a"), res("update", "coordination.k8s.io", "leases", "", "kube-node-lease", "node-a"), allow, ""},
		{"other lease", nodeUser("node-a"), res("update", "coordination.k8s.io", "leases", "", "kube-node-lease", "node-b"), none, "can only access node lease with the same name as the requesting node"},
		{"lease elsewhere", nodeUser("node-a"), res("get", "coordination.k8s.io", "leases", "", "kube-system", "node-a"), none, `can only access leases in the "kube-node-lease" system namespace`},
		{"lease list", nodeUser("node-a"), res("list", "coordination.k8s.io", "leases", "", "kube-node-lease", ""), none, "can only get, create, update, patch, or delete a node lease"},
		{"own csinode", nodeUser("node-a"), res("patch", "storage.k8s.io", "csinodes", "", "", "node-a"), allow, ""},
		{"other csinode", nodeUser("node-a"), res("get", "storage.k8s.io", "csinodes", "", "", "node-b"), none, "can only access CSINode with the same name as the requesting node"},
		{"own pod get", nodeUser("node-a"), res("get", "", "pods", "", "ns", "web"), allow, ""},
		{"other pod get", nodeUser("node-a"), res("get", "", "pods", "", "ns", "db"), none, noRel("node-a")},
		{"pod status", nodeUser("node-a"), res("update", "", "pods", "status", "ns", "web"), allow, ""},
		{"pod list falls to rules", nodeUser("node-a"), res("list", "", "pods", "", "", ""), allow, ""},
		{"pod exec", nodeUser("node-a"), res("create", "", "pods", "exec", "ns", "web"), none, ""},
		{"services from node rules", nodeUser("node-a"), res("list", "", "services", "", "", ""), allow, ""},
		{"runtimeclasses from node rules", nodeUser("node-a"), res("get", "node.k8s.io", "runtimeclasses", "", "", "x"), allow, ""},
		{"deployments not in rules", nodeUser("node-a"), res("get", "apps", "deployments", "", "ns", "x"), none, ""},
		{"not a node user", &user.DefaultInfo{Name: "alice", Groups: []string{NodesGroup}}, res("get", "", "secrets", "", "ns", "pull"), none, ""},
		{"node name without group", &user.DefaultInfo{Name: "system:node:node-a"}, res("get", "", "secrets", "", "ns", "pull"), none, ""},
		{"empty node name", nodeUser(""), res("get", "", "secrets", "", "ns", "pull"), none, "unknown node"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.attrs.User = c.user
			got, reason, err := z.Authorize(context.Background(), c.attrs)
			if err != nil || got != c.want || reason != c.reason {
				t.Errorf("got (%v, %q, %v), want (%v, %q)", got, reason, err, c.want, c.reason)
			}
		})
	}
}

func TestIdentity(t *testing.T) {
	for _, c := range []struct {
		u      user.Info
		name   string
		isNode bool
	}{
		{nil, "", false},
		{nodeUser("a"), "a", true},
		{&user.DefaultInfo{Name: "system:node:a"}, "", false},
		{&user.DefaultInfo{Name: "a", Groups: []string{NodesGroup}}, "", false},
	} {
		if name, ok := Identity(c.u); name != c.name || ok != c.isNode {
			t.Errorf("Identity(%v) = %q, %v; want %q, %v", c.u, name, ok, c.name, c.isNode)
		}
	}
}

func BenchmarkAuthorizeSecret(b *testing.B) {
	objs := []any{testPV()}
	for i := range 100 {
		p := testPod()
		p.Name = fmt.Sprintf("web-%d", i)
		objs = append(objs, p)
	}
	z := newTestAuthorizer(b, objs...)
	a := res("get", "", "secrets", "", "ns", "csi-missing")
	a.User = nodeUser("node-a")
	for b.Loop() {
		_, _, _ = z.Authorize(context.Background(), a)
	}
}
