package kapitest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Every test of the package must leave no goroutine behind once its
// servers stopped: that is Stop's promise.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, leakIgnores()...)
}

// leakIgnores are goroutines that belong to the process, not a server:
// klog's flush daemon, started by client-go's init.
func leakIgnores() []goleak.Option {
	return []goleak.Option{goleak.IgnoreTopFunction("k8s.io/klog/v2.(*flushDaemon).run.func1")}
}

func clientset(t testing.TB, cfg *rest.Config) kubernetes.Interface {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// crud creates, reads, updates and deletes a ConfigMap through cfg.
func crud(t testing.TB, cfg *rest.Config) {
	t.Helper()
	ctx := context.Background()
	cms := clientset(t, cfg).CoreV1().ConfigMaps("default")
	cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "crud"}, Data: map[string]string{"k": "v1"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	cm.Data["k"] = "v2"
	if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update: %v", err)
	}
	got, err := cms.Get(ctx, "crud", metav1.GetOptions{})
	if err != nil || got.Data["k"] != "v2" {
		t.Fatalf("get: %v, data %v, want k=v2", err, got.Data)
	}
	if err := cms.Delete(ctx, "crud", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := cms.Get(ctx, "crud", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("get after delete: %v, want NotFound", err)
	}
}

func TestStartMemory(t *testing.T) {
	s := StartServer(t)
	crud(t, s.Config())
	if _, err := os.Stat(filepath.Join(s.Dir(), "admin.kubeconfig")); err != nil {
		t.Errorf("admin kubeconfig: %v", err)
	}
	s.Stop()
	s.Stop() // a second Stop, and the one of Cleanup, do nothing
}

func TestStartEtcd(t *testing.T) {
	s := StartServer(t, WithEtcd())
	crud(t, s.Config())
	if _, err := os.Stat(filepath.Join(s.Dir(), "etcd")); err != nil {
		t.Errorf("embedded etcd data: %v", err)
	}
}

// whoAmI returns the user and groups the server sees for cfg.
func whoAmI(t *testing.T, cfg *rest.Config) authenticationv1.UserInfo {
	t.Helper()
	r, err := clientset(t, cfg).AuthenticationV1().SelfSubjectReviews().Create(context.Background(), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("SelfSubjectReview: %v", err)
	}
	return r.Status.UserInfo
}

func TestUsers(t *testing.T) {
	s := StartServer(t, WithUser("alice", "devs"))
	bob := s.AddUser("bob")
	alice := s.UserConfig("alice")
	ctx := context.Background()

	tests := []struct {
		cfg        *rest.Config
		name       string
		groups     []string
		canListCMs bool
	}{
		{s.Config(), "kapi-admin", []string{"system:masters", "system:authenticated"}, true},
		{alice, "alice", []string{"devs", "system:authenticated"}, true},
		{bob, "bob", []string{"system:authenticated"}, false},
	}
	// The default "view" ClusterRole is there: RBAC's bootstrap policy
	// finished before Start returned.
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "devs-view", Namespace: "default"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: "devs"}},
	}
	if _, err := clientset(t, s.Config()).RbacV1().RoleBindings("default").Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := whoAmI(t, tt.cfg)
			if got.Username != tt.name || strings.Join(got.Groups, ",") != strings.Join(tt.groups, ",") {
				t.Errorf("user %q groups %v, want %q %v", got.Username, got.Groups, tt.name, tt.groups)
			}
			_, err := clientset(t, tt.cfg).CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
			if tt.canListCMs && err != nil {
				t.Errorf("list configmaps: %v", err)
			}
			if !tt.canListCMs && !apierrors.IsForbidden(err) {
				t.Errorf("list configmaps: %v, want Forbidden", err)
			}
		})
	}
}

func TestAuthorizationModes(t *testing.T) {
	s := StartServer(t, WithAuthorizationModes("AlwaysAllow"), WithUser("bob"))
	if _, err := clientset(t, s.UserConfig("bob")).CoreV1().Secrets("kube-system").List(context.Background(), metav1.ListOptions{}); err != nil {
		t.Errorf("AlwaysAllow: bob lists secrets: %v", err)
	}
}

func TestServerConfig(t *testing.T) {
	tests := []struct {
		name    string
		opts    []Option
		backend string
		modes   []string
		enable  []string
		disable []string
		ctrls   []string
	}{
		{name: "defaults", backend: "memory"},
		{name: "etcd", opts: []Option{WithEtcd()}, backend: "etcd3"},
		{name: "authorization", opts: []Option{WithAuthorizationModes("RBAC", "Webhook")}, backend: "memory", modes: []string{"RBAC", "Webhook"}},
		{
			name:    "admission",
			opts:    []Option{WithAdmissionPlugins([]string{"A"}, []string{"B"}), WithAdmissionPlugins(nil, []string{"C"})},
			backend: "memory", enable: []string{"A"}, disable: []string{"B", "C"},
		},
		{name: "no controllers", opts: []Option{WithControllers()}, backend: "memory", ctrls: []string{}},
		{name: "some controllers", opts: []Option{WithControllers("*", "-garbage-collector-controller")}, backend: "memory", ctrls: []string{"*", "-garbage-collector-controller"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := serverConfig(buildOptions(tt.opts), "/d", "/d/pki")
			sec := c.Security
			if c.StorageBackend != tt.backend || strings.Join(sec.AuthorizationModes, ",") != strings.Join(tt.modes, ",") ||
				strings.Join(sec.EnableAdmissionPlugins, ",") != strings.Join(tt.enable, ",") ||
				strings.Join(sec.DisableAdmissionPlugins, ",") != strings.Join(tt.disable, ",") {
				t.Errorf("backend %q modes %v enable %v disable %v; want %q %v %v %v", c.StorageBackend,
					sec.AuthorizationModes, sec.EnableAdmissionPlugins, sec.DisableAdmissionPlugins,
					tt.backend, tt.modes, tt.enable, tt.disable)
			}
			if (c.Controllers == nil) != (tt.ctrls == nil) || strings.Join(c.Controllers, ",") != strings.Join(tt.ctrls, ",") {
				t.Errorf("controllers %#v, want %#v", c.Controllers, tt.ctrls)
			}
			if c.EmbeddedEtcdUnsafeNoFsync != (tt.backend == "etcd3") {
				t.Errorf("embedded etcd without fsync: %v, want it for a test server's etcd only", c.EmbeddedEtcdUnsafeNoFsync)
			}
			if c.SecurePort != 0 || c.DataDir != "/d" || c.CertDir != "/d/pki" {
				t.Errorf("port %d data %q certs %q: want a free port and everything under the test's directory", c.SecurePort, c.DataDir, c.CertDir)
			}
		})
	}
}

// TestControllers: by default the server acts as a cluster (a new
// namespace gets its default ServiceAccount); WithControllers() runs none,
// as envtest's kube-apiserver does.
func TestControllers(t *testing.T) {
	ctx := context.Background()
	withDefaultAccount := func(cfg *rest.Config) bool {
		cs := kubernetes.NewForConfigOrDie(cfg)
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		// Both servers get the same time to create it; with the
		// controllers it appears within milliseconds.
		err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 3*time.Second, true, func(ctx context.Context) (bool, error) {
			_, err := cs.CoreV1().ServiceAccounts("x").Get(ctx, "default", metav1.GetOptions{})
			return err == nil, nil
		})
		return err == nil
	}
	if !withDefaultAccount(Start(t)) {
		t.Error("default controllers: no default ServiceAccount in a new namespace")
	}
	if withDefaultAccount(Start(t, WithControllers())) {
		t.Error("WithControllers(): a default ServiceAccount appeared")
	}
}
