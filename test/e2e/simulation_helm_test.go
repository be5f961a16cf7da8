package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kapi-dev/kapi/test/e2e/framework"
)

// webChart is the chart the helm test installs: a Deployment of
// .Values.replicas Pods, a Service, a ConfigMap and a post-install hook
// Job that helm deletes once it succeeded.
var webChart = filepath.Join("testdata", "charts", "web")

// webSelector selects the Pods of the web chart's release "web".
const webSelector = "app.kubernetes.io/name=web,app.kubernetes.io/instance=web"

// TestSimulatedNodesHelm: with --simulated-nodes=3, the real helm's
// --wait returns once what it installed is ready, as on a real cluster:
// install (with a post-install hook Job), upgrade to more replicas and
// uninstall all wait and return, and the Deployment is Available at once
// after each. An install whose Pods can never be scheduled times out and
// leaves a failed release, so --wait does wait.
func TestSimulatedNodesHelm(t *testing.T) {
	helm := framework.RequireHelm(t)
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"), framework.WithArgs("--simulated-nodes=3"))
	h := newHelmRunner(t, helm, k)
	cs := k.Clientset()

	t.Run("install-upgrade-uninstall", func(t *testing.T) {
		h := h.with(t)
		mustHave(t, h.run("install", "web", webChart, "-n", "demo", "--create-namespace", "--wait", "--timeout", simWait.String()),
			"STATUS: deployed", "REVISION: 1")
		rel := h.status("web", "demo")
		if rel.Info.Status != "deployed" {
			t.Errorf("helm status web: %q, want deployed", rel.Info.Status)
		}
		if len(rel.Hooks) != 1 || rel.Hooks[0].LastRun.Phase != "Succeeded" {
			t.Errorf("hooks of release web: %+v, want one whose last run Succeeded", rel.Hooks)
		}
		// hook-succeeded: helm deleted the Job, and waited for it to go.
		if _, err := cs.BatchV1().Jobs("demo").Get(t.Context(), "web-smoke", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("post-install Job web-smoke after install: %v, want NotFound", err)
		}
		wantAvailable(t, cs, "demo", "web", 3)
		cm, err := cs.CoreV1().ConfigMaps("demo").Get(t.Context(), "web-config", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := cm.Data["greeting"]; got != "hello from kapi" {
			t.Errorf("configmap web-config greeting %q, want the chart's value", got)
		}
		svc, err := cs.CoreV1().Services("demo").Get(t.Context(), "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if svc.Spec.ClusterIP == "" {
			t.Errorf("service web has no cluster IP")
		}

		mustHave(t, h.run("upgrade", "web", webChart, "-n", "demo", "--set", "replicas=4", "--wait", "--timeout", simWait.String()),
			"STATUS: deployed", "REVISION: 2")
		wantAvailable(t, cs, "demo", "web", 4)
		var list []struct{ Name, Revision, Status string }
		h.json(&list, "list", "-n", "demo")
		if len(list) != 1 || list[0].Name != "web" || list[0].Revision != "2" || list[0].Status != "deployed" {
			t.Errorf("helm list -n demo: %+v, want web at revision 2, deployed", list)
		}

		mustHave(t, h.run("uninstall", "web", "-n", "demo", "--wait", "--timeout", simWait.String()), `release "web" uninstalled`)
		gone := map[string]func(context.Context) error{
			"deployment web": func(ctx context.Context) error {
				_, err := cs.AppsV1().Deployments("demo").Get(ctx, "web", metav1.GetOptions{})
				return err
			},
			"service web": func(ctx context.Context) error {
				_, err := cs.CoreV1().Services("demo").Get(ctx, "web", metav1.GetOptions{})
				return err
			},
			"configmap web-config": func(ctx context.Context) error {
				_, err := cs.CoreV1().ConfigMaps("demo").Get(ctx, "web-config", metav1.GetOptions{})
				return err
			},
		}
		for what, get := range gone {
			if err := get(t.Context()); !apierrors.IsNotFound(err) {
				t.Errorf("%s after helm uninstall --wait: %v, want NotFound", what, err)
			}
		}
		// helm 4 lists releases in every state unless told otherwise.
		var left []struct{ Name, Status string }
		h.json(&left, "list", "-n", "demo")
		if len(left) != 0 {
			t.Errorf("helm list -n demo after uninstall: %+v, want none", left)
		}
		// The ReplicaSets and their Pods go by the garbage collector.
		eventually(t, "web pods gone after uninstall", func(ctx context.Context) (bool, error) {
			pods, err := cs.CoreV1().Pods("demo").List(ctx, metav1.ListOptions{LabelSelector: webSelector})
			if err != nil {
				return false, err
			}
			rss, err := cs.AppsV1().ReplicaSets("demo").List(ctx, metav1.ListOptions{LabelSelector: webSelector})
			if err != nil {
				return false, err
			}
			return len(pods.Items) == 0 && len(rss.Items) == 0, nil
		})
	})

	t.Run("wait-times-out", func(t *testing.T) {
		h := h.with(t)
		out := h.fails("install", "stuck", webChart, "-n", "stuck", "--create-namespace",
			"--set", "nodeSelector.disktype=none", "--wait", "--timeout", "5s")
		mustHave(t, out, "Deployment/stuck/stuck not ready", "context deadline exceeded")
		if rel := h.status("stuck", "stuck"); rel.Info.Status != "failed" {
			t.Errorf("helm status stuck: %q, want failed", rel.Info.Status)
		}
		d, err := cs.AppsV1().Deployments("stuck").Get(t.Context(), "stuck", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if d.Status.AvailableReplicas != 0 {
			t.Errorf("deployment stuck has %d available replicas, want 0 (no node matches its nodeSelector)", d.Status.AvailableReplicas)
		}
	})
}

// wantAvailable checks, without waiting, that the Deployment has rolled
// out replicas available Pods: helm's --wait returned, so it must have.
func wantAvailable(t *testing.T, cs kubernetes.Interface, ns, name string, replicas int32) {
	t.Helper()
	d, err := cs.AppsV1().Deployments(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st := d.Status
	if st.ObservedGeneration != d.Generation || st.AvailableReplicas != replicas || st.UpdatedReplicas != replicas || st.Replicas != replicas {
		t.Errorf("deployment %s/%s at generation %d: observed %d, replicas %d, updated %d, available %d; want %d of each",
			ns, name, d.Generation, st.ObservedGeneration, st.Replicas, st.UpdatedReplicas, st.AvailableReplicas, replicas)
	}
}

// helmRunner runs the built helm against one kapi, with its home, its
// cache, config and data and client-go's discovery cache under the test's
// temporary directory, so that nothing from $HOME is read or written and
// no other server's discovery (ports are reused) is taken for kapi's.
type helmRunner struct {
	t    *testing.T
	path string
	args []string // before each command's own
	env  []string
}

func newHelmRunner(t *testing.T, path string, k *framework.Kapi) helmRunner {
	home := t.TempDir()
	// A HELM_ or kube setting of the environment the test runs in must
	// not change what helm does here.
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(name, "HELM_"), name == "HOME", name == "KUBECONFIG", name == "KUBECACHEDIR":
		default:
			env = append(env, kv)
		}
	}
	env = append(env,
		"HOME="+home,
		"KUBECACHEDIR="+filepath.Join(home, "kube-cache"),
		"HELM_CACHE_HOME="+filepath.Join(home, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(home, "config"),
		"HELM_DATA_HOME="+filepath.Join(home, "data"),
	)
	return helmRunner{t: t, path: path, args: []string{"--kubeconfig", k.Kubeconfig()}, env: env}
}

// with is the runner reporting to t, for a subtest.
func (h helmRunner) with(t *testing.T) helmRunner {
	h.t = t
	return h
}

func (h helmRunner) exec(args ...string) (stdout, stderr string, err error) {
	h.t.Helper()
	cmd := exec.CommandContext(h.t.Context(), h.path, append(append([]string(nil), h.args...), args...)...)
	cmd.Env = h.env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
}

// run runs helm and returns its stdout; a failure ends the test.
func (h helmRunner) run(args ...string) string {
	h.t.Helper()
	out, stderr, err := h.exec(args...)
	if err != nil {
		h.t.Fatalf("helm %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr)
	}
	return out
}

// fails runs helm expecting an error and returns what it printed.
func (h helmRunner) fails(args ...string) string {
	h.t.Helper()
	out, stderr, err := h.exec(args...)
	if err == nil {
		h.t.Fatalf("helm %s succeeded, want an error:\n%s", strings.Join(args, " "), out)
	}
	return out + stderr
}

// json runs helm with -o json and decodes its output into v.
func (h helmRunner) json(v any, args ...string) {
	h.t.Helper()
	out := h.run(append(args, "-o", "json")...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		h.t.Fatalf("helm %s -o json: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// helmRelease is what the test reads of `helm status -o json`.
type helmRelease struct {
	Info struct {
		Status string `json:"status"`
	} `json:"info"`
	Hooks []struct {
		Name    string `json:"name"`
		LastRun struct {
			Phase string `json:"phase"`
		} `json:"last_run"`
	} `json:"hooks"`
}

func (h helmRunner) status(release, ns string) helmRelease {
	h.t.Helper()
	var rel helmRelease
	h.json(&rel, "status", release, "-n", ns)
	return rel
}
