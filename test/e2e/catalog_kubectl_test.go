package e2e

import (
	"encoding/base64"
	"encoding/json"
	"net/netip"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/test/e2e/framework"
)

// kubectlRunner runs kubectl against k and fails the test on error.
type kubectlRunner struct {
	t *testing.T
	k *framework.Kapi
}

func (r kubectlRunner) run(args ...string) string {
	r.t.Helper()
	out, err := r.k.Kubectl(r.t, args...)
	if err != nil {
		r.t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// fails runs kubectl expecting an error and returns what it printed.
func (r kubectlRunner) fails(stdin string, args ...string) string {
	r.t.Helper()
	out, stderr, err := r.k.KubectlOutput(r.t, stdin, args...)
	if err == nil {
		r.t.Fatalf("kubectl %s succeeded, want an error:\n%s", strings.Join(args, " "), out)
	}
	return out + stderr
}

func (r kubectlRunner) jsonpath(path string, args ...string) string {
	r.t.Helper()
	return r.run(append(args, "-o", "jsonpath="+path)...)
}

func mustHave(t *testing.T, out string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}

// TestKubectlCreateWorkloads runs the kubectl generators a user types
// every day and checks what the server filled in.
func TestKubectlCreateWorkloads(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"))
	r := kubectlRunner{t, k}

	r.run("create", "deployment", "web", "--image=nginx:1.27", "--replicas=2")
	got := r.jsonpath("{.spec.strategy.type} {.spec.strategy.rollingUpdate.maxSurge} {.spec.strategy.rollingUpdate.maxUnavailable} {.spec.revisionHistoryLimit} {.spec.progressDeadlineSeconds} {.metadata.generation}", "get", "deployment", "web")
	if got != "RollingUpdate 25% 25% 10 600 1" {
		t.Errorf("deployment defaults = %q", got)
	}
	got = r.jsonpath("{.spec.template.spec.restartPolicy} {.spec.template.spec.dnsPolicy} {.spec.template.spec.terminationGracePeriodSeconds} {.spec.template.spec.schedulerName} {.spec.template.spec.containers[0].imagePullPolicy} {.spec.template.spec.containers[0].terminationMessagePath}", "get", "deployment", "web")
	if got != "Always ClusterFirst 30 default-scheduler IfNotPresent /dev/termination-log" {
		t.Errorf("pod template defaults = %q", got)
	}
	mustHave(t, r.run("get", "deployments"), "NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "web", "0/2")

	mustHave(t, r.run("scale", "deployment", "web", "--replicas=5"), "deployment.apps/web scaled")
	if got := r.jsonpath("{.spec.replicas} {.metadata.generation}", "get", "deployment", "web"); got != "5 2" {
		t.Errorf("after scale: replicas generation = %q", got)
	}
	var scale struct {
		Kind string
		Spec struct{ Replicas int }
	}
	if err := json.Unmarshal([]byte(r.run("get", "--raw", "/apis/apps/v1/namespaces/default/deployments/web/scale")), &scale); err != nil || scale.Kind != "Scale" || scale.Spec.Replicas != 5 {
		t.Errorf("scale subresource = %+v, %v", scale, err)
	}

	r.run("create", "job", "hello", "--image=busybox")
	got = r.jsonpath("{.spec.completions} {.spec.parallelism} {.spec.backoffLimit} {.spec.template.spec.restartPolicy}", "get", "job", "hello")
	if got != "1 1 6 Never" {
		t.Errorf("job defaults = %q", got)
	}
	if sel := r.jsonpath("{.spec.selector.matchLabels}", "get", "job", "hello"); !strings.Contains(sel, "batch.kubernetes.io/controller-uid") {
		t.Errorf("job selector not generated: %s", sel)
	}
	r.run("create", "cronjob", "tick", "--image=busybox", "--schedule=*/5 * * * *")
	if got := r.jsonpath("{.spec.concurrencyPolicy} {.spec.successfulJobsHistoryLimit} {.spec.failedJobsHistoryLimit}", "get", "cronjob", "tick"); got != "Allow 3 1" {
		t.Errorf("cronjob defaults = %q", got)
	}
	mustHave(t, r.fails("", "create", "cronjob", "bad", "--image=busybox", "--schedule=not a schedule"), "spec.schedule")

	r.run("create", "secret", "generic", "creds", "--from-literal=user=admin")
	if got := r.jsonpath("{.type}", "get", "secret", "creds"); got != "Opaque" {
		t.Errorf("secret type = %q", got)
	}

	all := r.run("get", "all")
	mustHave(t, all, "deployment.apps/web", "job.batch/hello", "cronjob.batch/tick", "service/kubernetes")
}

// TestKubectlServicesAndTokens covers cluster IPs, the kubernetes service
// and service-account tokens.
func TestKubectlServicesAndTokens(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"))
	r := kubectlRunner{t, k}

	if got := r.jsonpath("{.spec.clusterIP} {.spec.ports[0].port}", "get", "service", "kubernetes", "-n", "default"); got != "10.0.0.1 443" {
		t.Errorf("kubernetes service = %q", got)
	}
	r.run("create", "service", "clusterip", "web", "--tcp=80:8080")
	ip := r.jsonpath("{.spec.clusterIP}", "get", "service", "web")
	addr, err := netip.ParseAddr(ip)
	if err != nil || !netip.MustParsePrefix("10.0.0.0/24").Contains(addr) || ip == "10.0.0.1" {
		t.Errorf("cluster IP %q not allocated from the range", ip)
	}
	mustHave(t, r.run("get", "svc", "web"), "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "ClusterIP", ip, "80/TCP")
	r.run("create", "service", "nodeport", "edge", "--tcp=80:8080")
	port := r.jsonpath("{.spec.ports[0].nodePort}", "get", "service", "edge")
	if port < "30000" || port > "32767" || len(port) != 5 {
		t.Errorf("node port %q not from 30000-32767", port)
	}

	r.run("create", "serviceaccount", "robot")
	token := strings.TrimSpace(r.run("create", "token", "robot", "--duration=1h"))
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("token is not a JWT: %q", token)
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var claims struct {
		Sub string   `json:"sub"`
		Aud []string `json:"aud"`
		Exp int64    `json:"exp"`
		Iat int64    `json:"iat"`
	}
	if err := json.Unmarshal(payload, &claims); err != nil || claims.Sub != "system:serviceaccount:default:robot" || claims.Exp-claims.Iat != 3600 {
		t.Errorf("token claims = %s, %v", payload, err)
	}
	mustHave(t, r.fails("", "create", "token", "nobody"), `serviceaccounts "nobody" not found`)
}

// TestKubectlPods checks pods are stored, not run: defaults, status
// Pending, and a clear error for what needs a kubelet.
func TestKubectlPods(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"))
	r := kubectlRunner{t, k}
	r.run("run", "p", "--image=nginx")
	if got := r.jsonpath("{.status.phase} {.spec.containers[0].imagePullPolicy} {.spec.enableServiceLinks}", "get", "pod", "p"); got != "Pending Always true" {
		t.Errorf("pod = %q", got)
	}
	mustHave(t, r.run("get", "pods"), "NAME", "READY", "STATUS", "RESTARTS", "AGE", "0/1", "Pending")
	mustHave(t, r.fails("", "logs", "p"), "kubelet")
	mustHave(t, r.fails("", "exec", "p", "--", "ls"), `pods "p": no kubelet is running`)
	mustHave(t, r.fails("", "exec", "nope", "--", "ls"), `pods "nope" not found`)
	noImage := "apiVersion: v1\nkind: Pod\nmetadata: {name: bad}\nspec: {containers: [{name: c}]}\n"
	mustHave(t, r.fails(noImage, "create", "-f", "-"), "spec.containers[0].image: Required value")
}
