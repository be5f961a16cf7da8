package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kapi-dev/kapi/test/e2e/framework"
)

// rolloutWait bounds kubectl rollout status; the Pods are made Ready by
// the test as soon as they exist.
const rolloutWait = 2 * time.Minute

// readyPods plays the kubelet: every active Pod of selector not yet
// Running becomes Running and Ready.
func readyPods(ctx context.Context, cs kubernetes.Interface, ns, selector string) error {
	pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return err
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodRunning {
			continue
		}
		p.Status.Phase = corev1.PodRunning
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Now()})
		if _, err := cs.CoreV1().Pods(ns).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
			return err
		}
	}
	return nil
}

// rollout runs `kubectl rollout status` while the test readies Pods,
// until kubectl reports success.
func rollout(t *testing.T, k *framework.Kapi, cs kubernetes.Interface) {
	t.Helper()
	status := k.KubectlBackground(t, "rollout", "status", "deployment/web", "--timeout="+rolloutWait.String())
	eventually(t, "deployment rolled out", func(ctx context.Context) (bool, error) {
		if err := readyPods(ctx, cs, "default", "app=web"); err != nil {
			return false, err
		}
		d, err := cs.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		st := d.Status
		return st.ObservedGeneration == d.Generation && st.UpdatedReplicas == *d.Spec.Replicas && st.Replicas == st.UpdatedReplicas && st.AvailableReplicas == st.UpdatedReplicas, nil
	})
	if !status.WaitFor("successfully rolled out", rolloutWait) {
		t.Fatalf("kubectl rollout status:\n%s", status.Output())
	}
}

// TestDeploymentKubectl: what a user types, against kapi's in-process
// deployment and replicaset controllers (Pods marked Ready by the test):
// create gives a ReplicaSet and Pending Pods with owner references and
// pod-template-hash, rollout status completes, set image makes revision
// 2, rollout history lists both, rollout undo returns to the first
// template as revision 3, scale resizes the active ReplicaSet, and
// deleting the Deployment removes its ReplicaSets and Pods.
func TestDeploymentKubectl(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"))
	r := kubectlRunner{t, k}
	cs := k.Clientset()

	r.run("create", "deployment", "web", "--image=nginx:1.27", "--replicas=2")
	eventually(t, "ReplicaSet and Pending Pods", func(ctx context.Context) (bool, error) {
		rss, err := cs.AppsV1().ReplicaSets("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil || len(rss.Items) != 1 {
			return false, err
		}
		rs := rss.Items[0]
		hash := rs.Labels[appsv1.DefaultDeploymentUniqueLabelKey]
		pods, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil || len(pods.Items) != 2 {
			return false, err
		}
		for _, p := range pods.Items {
			ref := metav1.GetControllerOf(&p)
			if ref == nil || ref.UID != rs.UID || p.Labels[appsv1.DefaultDeploymentUniqueLabelKey] != hash || p.Status.Phase != corev1.PodPending || !strings.HasPrefix(p.Name, rs.Name+"-") {
				return false, fmt.Errorf("pod %s: %v %v %s", p.Name, p.OwnerReferences, p.Labels, p.Status.Phase)
			}
		}
		return rs.Name == "web-"+hash, nil
	})
	rollout(t, k, cs)

	mustHave(t, r.run("set", "image", "deployment/web", "nginx=nginx:1.28"), "deployment.apps/web image updated")
	rollout(t, k, cs)
	history := r.run("rollout", "history", "deployment/web")
	mustHave(t, history, "REVISION", "1 ", "2 ")
	mustHave(t, r.run("rollout", "history", "deployment/web", "--revision=1"), "nginx:1.27")

	mustHave(t, r.run("rollout", "undo", "deployment/web"), "deployment.apps/web rolled back")
	rollout(t, k, cs)
	if got := r.jsonpath(`{.spec.template.spec.containers[0].image} {.metadata.annotations.deployment\.kubernetes\.io/revision}`, "get", "deployment", "web"); got != "nginx:1.27 3" {
		t.Errorf("after undo: image revision = %q, want nginx:1.27 3", got)
	}
	mustHave(t, r.run("rollout", "history", "deployment/web"), "2 ", "3 ")

	r.run("scale", "deployment", "web", "--replicas=3")
	eventually(t, "active ReplicaSet scaled to 3", func(ctx context.Context) (bool, error) {
		rss, err := cs.AppsV1().ReplicaSets("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil {
			return false, err
		}
		for _, rs := range rss.Items {
			if rs.Annotations["deployment.kubernetes.io/revision"] == "3" {
				return *rs.Spec.Replicas == 3 && rs.Status.Replicas == 3, nil
			}
		}
		return false, nil
	})

	r.run("delete", "deployment", "web")
	eventually(t, "ReplicaSets and Pods collected", func(ctx context.Context) (bool, error) {
		rss, err := cs.AppsV1().ReplicaSets("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil {
			return false, err
		}
		pods, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil {
			return false, err
		}
		return len(rss.Items) == 0 && len(pods.Items) == 0, nil
	})
}
