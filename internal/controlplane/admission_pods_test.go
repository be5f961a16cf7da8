package controlplane

import (
	"bufio"
	"context"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// podPlugins are the pod admission plugins the test turns on.
var podPlugins = []string{
	"NamespaceExists", "LimitRanger", "ServiceAccount", "PodSecurity", "Priority", "DefaultTolerationSeconds",
	"RuntimeClass", "TaintNodesByCondition", "AlwaysPullImages", "PodTopologyLabels",
}

// startWithPodPlugins runs the control plane on the memory backend with
// the pod admission plugins enabled and returns a client-go clientset
// (protobuf) that collects Warning headers into warnings.
func startWithPodPlugins(t *testing.T, warnings *[]string) kubernetes.Interface {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	cfg := &Config{
		Out: pw, DataDir: dir, CertDir: filepath.Join(dir, "pki"),
		BindAddress: net.ParseIP("127.0.0.1"), SecurePort: 0,
		StorageBackend: "memory", EtcdPrefix: "/registry", WatchCacheSize: 1000,
		RequestTimeout: time.Minute, MinRequestTimeout: 30 * time.Minute,
		MaxRequestBytes: 3 << 20,
	}
	cfg.Security.EnableAdmissionPlugins = podPlugins
	// No controllers: the test shows a pod refused until it creates the
	// default ServiceAccount itself.
	cfg.Controllers = []string{}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, cfg); pw.Close() }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	scanner := bufio.NewScanner(pr)
	for scanner.Scan() {
		if strings.HasPrefix(scanner.Text(), "kapi is ready") {
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	restCfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(dir, "admin.kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	restCfg.QPS, restCfg.Burst = -1, -1
	restCfg.ContentType = "application/vnd.kubernetes.protobuf"
	restCfg.WarningHandler = podWarnings{warnings}
	return kubernetes.NewForConfigOrDie(restCfg)
}

// podWarnings appends the Warning headers a client received to a slice
// the test resets between steps.
type podWarnings struct{ into *[]string }

func (w podWarnings) HandleWarningHeader(_ int, _ string, text string) {
	*w.into = append(*w.into, text)
}

var _ rest.WarningHandler = podWarnings{}

// TestPodAdmissionThroughServer creates pods through client-go: one in a
// plain namespace defaulted by ServiceAccount, Priority and
// DefaultTolerationSeconds, and one refused in a restricted namespace
// with upstream's message.
func TestPodAdmissionThroughServer(t *testing.T) {
	var warnings []string
	cs := startWithPodPlugins(t, &warnings)
	ctx := context.Background()
	pod := func(name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
	}

	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "apps"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// No default account yet: the pod is refused as upstream refuses it.
	_, err := cs.CoreV1().Pods("apps").Create(ctx, pod("early"), metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || err.Error() != `pods "early" is forbidden: error looking up service account apps/default: serviceaccount "default" not found` {
		t.Fatalf("pod without a default account: %v", err)
	}
	if _, err := cs.CoreV1().ServiceAccounts("apps").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := cs.CoreV1().Pods("apps").Create(ctx, pod("web"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.ServiceAccountName != "default" {
		t.Errorf("serviceAccountName = %q", got.Spec.ServiceAccountName)
	}
	if len(got.Spec.Volumes) != 1 || !strings.HasPrefix(got.Spec.Volumes[0].Name, "kube-api-access-") || got.Spec.Volumes[0].Projected == nil {
		t.Errorf("volumes = %+v", got.Spec.Volumes)
	}
	if m := got.Spec.Containers[0].VolumeMounts; len(m) != 1 || m[0].MountPath != "/var/run/secrets/kubernetes.io/serviceaccount" || !m[0].ReadOnly {
		t.Errorf("mounts = %+v", m)
	}
	if got.Spec.Priority == nil || *got.Spec.Priority != 0 {
		t.Errorf("priority = %v", got.Spec.Priority)
	}
	if len(got.Spec.Tolerations) != 2 || *got.Spec.Tolerations[0].TolerationSeconds != 300 {
		t.Errorf("tolerations = %+v", got.Spec.Tolerations)
	}
	if got.Spec.Containers[0].ImagePullPolicy != corev1.PullAlways {
		t.Errorf("imagePullPolicy = %s", got.Spec.Containers[0].ImagePullPolicy)
	}
	node, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(node.Spec.Taints) != 1 || node.Spec.Taints[0].Key != "node.kubernetes.io/not-ready" || node.Spec.Taints[0].Effect != corev1.TaintEffectNoSchedule {
		t.Errorf("new node's taints = %+v", node.Spec.Taints)
	}

	restricted := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "locked", Labels: map[string]string{"pod-security.kubernetes.io/enforce": "restricted"}}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, restricted, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().ServiceAccounts("locked").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = cs.CoreV1().Pods("locked").Create(ctx, pod("x"), metav1.CreateOptions{})
	want := `pods "x" is forbidden: violates PodSecurity "restricted:latest": ` +
		`allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), ` +
		`unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), ` +
		`runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), ` +
		`seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`
	if !apierrors.IsForbidden(err) || err.Error() != want {
		t.Fatalf("restricted pod:\n got %v\nwant %s", err, want)
	}

	// A Deployment's template is not refused, only warned about.
	warnings = nil
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d"}, Spec: appsv1.DeploymentSpec{
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "d"}},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "d"}}, Spec: pod("").Spec},
	}}
	if _, err := cs.AppsV1().Deployments("locked").Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.HasPrefix(warnings[0], `would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false`) {
		t.Errorf("deployment warnings = %q", warnings)
	}

	// Labelling the first namespace restricted warns about its pod.
	warnings = nil
	ns, err := cs.CoreV1().Namespaces().Get(ctx, "apps", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ns.Labels = map[string]string{"pod-security.kubernetes.io/enforce": "restricted"}
	if _, err := cs.CoreV1().Namespaces().Update(ctx, ns, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 2 || warnings[0] != `existing pods in namespace "apps" violate the new PodSecurity enforce level "restricted:latest"` ||
		!strings.HasPrefix(warnings[1], "web: allowPrivilegeEscalation != false") {
		t.Errorf("warnings = %q", warnings)
	}
}
