package e2e

import (
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kapi-dev/kapi/test/e2e/framework"
)

// TestRBACBootstrapPolicy checks the default roles through kubectl, as a
// cluster admin does: bindings to view, edit and admin, `kubectl auth
// can-i --as`, the escalation and bind checks, and impersonation rights.
func TestRBACBootstrapPolicy(t *testing.T) {
	tokens := writeTestFile(t, "tokens.csv", []byte("tok-alice,alice,uid-alice\ntok-carol,carol,uid-carol\n"))
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"),
		framework.WithArgs("--authorization-mode=Node,RBAC", "--token-auth-file="+tokens))
	r := kubectlRunner{t, k}

	r.run("create", "namespace", "team")
	r.run("create", "clusterrolebinding", "alice-view", "--clusterrole=view", "--user=alice")
	r.run("-n", "team", "create", "rolebinding", "bob-edit", "--clusterrole=edit", "--user=bob")
	r.run("-n", "team", "create", "rolebinding", "carol-admin", "--clusterrole=admin", "--user=carol")

	cases := []struct {
		user, verb, resource, namespace string
		allowed                         bool
	}{
		{"alice", "get", "pods", "team", true},
		{"alice", "list", "deployments.apps", "default", true},
		{"alice", "get", "secrets", "team", false},
		{"alice", "create", "pods", "team", false},
		{"alice", "list", "nodes", "", false},
		{"bob", "create", "deployments.apps", "team", true},
		{"bob", "get", "secrets", "team", true},
		{"bob", "create", "roles.rbac.authorization.k8s.io", "team", false},
		{"bob", "create", "rolebindings.rbac.authorization.k8s.io", "team", false},
		{"bob", "get", "pods", "default", false},
		{"carol", "create", "roles.rbac.authorization.k8s.io", "team", true},
		{"carol", "create", "rolebindings.rbac.authorization.k8s.io", "team", true},
		{"carol", "delete", "namespaces", "", false},
		{"nobody", "get", "pods", "team", false},
	}
	for _, c := range cases {
		args := []string{"auth", "can-i", c.verb, c.resource, "--as=" + c.user}
		if c.namespace != "" {
			args = append(args, "-n", c.namespace)
		}
		out, _, err := k.KubectlOutput(t, "", args...)
		got := strings.TrimSpace(out)
		want := "no"
		if c.allowed {
			want = "yes"
		}
		if got != want || (err == nil) != c.allowed {
			t.Errorf("kubectl %s: %q (err %v), want %s", strings.Join(args, " "), got, err, want)
		}
	}

	// Writes as the users themselves.
	mustHave(t, r.fails("", "--as=alice", "-n", "team", "get", "secrets"),
		`User "alice" cannot list resource "secrets" in API group "" in the namespace "team"`)
	r.run("--as=bob", "-n", "team", "create", "configmap", "made-by-bob")
	mustHave(t, r.fails("", "--as=bob", "-n", "team", "create", "role", "r", "--verb=get", "--resource=pods"),
		`User "bob" cannot create resource "roles" in API group "rbac.authorization.k8s.io" in the namespace "team"`)

	// carol may write roles and bindings in team, but only with
	// permissions she holds there.
	r.run("--as=carol", "-n", "team", "create", "role", "pod-reader", "--verb=get", "--resource=pods")
	mustHave(t, r.fails("", "--as=carol", "-n", "team", "create", "role", "node-reader", "--verb=get", "--resource=nodes"),
		`is attempting to grant RBAC permissions not currently held`, `Resources:["nodes"]`)
	mustHave(t, r.fails("", "--as=carol", "-n", "team", "create", "rolebinding", "grab", "--clusterrole=cluster-admin", "--user=carol"),
		`is attempting to grant RBAC permissions not currently held`)
	r.run("--as=carol", "-n", "team", "create", "rolebinding", "readers", "--role=pod-reader", "--user=alice")

	// Impersonation is a permission of its own.
	asAlice := "--kubeconfig=" + tokenKubeconfig(t, k, "tok-alice")
	mustHave(t, r.fails("", asAlice, "--as=carol", "get", "pods", "-n", "team"),
		`users "carol" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope`)
	if got := r.run("--kubeconfig="+tokenKubeconfig(t, k, "tok-carol"), "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"); got != "carol" {
		t.Errorf("kubectl auth whoami as carol = %q", got)
	}
}

// tokenKubeconfig writes a kubeconfig for k's server that logs in with a
// bearer token only (the admin kubeconfig's client certificate would win
// over a --token flag).
func tokenKubeconfig(t *testing.T, k *framework.Kapi, token string) string {
	t.Helper()
	admin := k.RESTConfig()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["kapi"] = &clientcmdapi.Cluster{Server: admin.Host, CertificateAuthorityData: admin.CAData}
	cfg.AuthInfos["user"] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts["user"] = &clientcmdapi.Context{Cluster: "kapi", AuthInfo: "user"}
	cfg.CurrentContext = "user"
	path := writeTestFile(t, "user.kubeconfig", nil)
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}
