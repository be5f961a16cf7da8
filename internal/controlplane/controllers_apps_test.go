package controlplane

import (
	"context"
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// markPodsReady plays the kubelet for the Pods of selector: each active
// Pod not yet Ready becomes Running and Ready.
func markPodsReady(ctx context.Context, cs kubernetes.Interface, ns, selector string) error {
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

// TestDeploymentRollout runs the deployment and replicaset controllers
// behind a real server: a Deployment gets a ReplicaSet named by its
// pod-template-hash and Pending Pods it owns; once the Pods are Ready
// the Deployment is Available and complete; a new image rolls out as
// revision 2 and the first ReplicaSet ends at zero.
func TestDeploymentRollout(t *testing.T) {
	s := startServer(t, "memory")
	cs, err := kubernetes.NewForConfig(s.restCfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const ns = "bench"
	labels := map[string]string{"app": "web"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](3),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1"}}},
			},
		},
	}
	if _, err := cs.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "a ReplicaSet and 3 Pending Pods", func(ctx context.Context) (bool, error) {
		rss, err := cs.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil || len(rss.Items) != 1 {
			return false, err
		}
		rs := rss.Items[0]
		hash := rs.Labels[appsv1.DefaultDeploymentUniqueLabelKey]
		if rs.Name != "web-"+hash || metav1.GetControllerOf(&rs) == nil || metav1.GetControllerOf(&rs).Kind != "Deployment" || rs.Annotations["deployment.kubernetes.io/revision"] != "1" {
			return false, fmt.Errorf("replicaset %s %v %v", rs.Name, rs.Labels, rs.OwnerReferences)
		}
		pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil || len(pods.Items) != 3 {
			return false, err
		}
		for _, p := range pods.Items {
			ref := metav1.GetControllerOf(&p)
			if ref == nil || ref.UID != rs.UID || p.Labels[appsv1.DefaultDeploymentUniqueLabelKey] != hash || p.Status.Phase != corev1.PodPending {
				return false, fmt.Errorf("pod %s: %v %v %s", p.Name, p.OwnerReferences, p.Labels, p.Status.Phase)
			}
		}
		return true, nil
	})
	waitComplete := func(revision string) {
		poll(t, "deployment complete at revision "+revision, func(ctx context.Context) (bool, error) {
			if err := markPodsReady(ctx, cs, ns, "app=web"); err != nil {
				return false, err
			}
			got, err := cs.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			st := got.Status
			available, progressing := false, false
			for _, c := range st.Conditions {
				available = available || (c.Type == appsv1.DeploymentAvailable && c.Status == corev1.ConditionTrue && c.Reason == "MinimumReplicasAvailable")
				progressing = progressing || (c.Type == appsv1.DeploymentProgressing && c.Reason == "NewReplicaSetAvailable")
			}
			ok := got.Annotations["deployment.kubernetes.io/revision"] == revision && st.ObservedGeneration == got.Generation &&
				st.Replicas == 3 && st.UpdatedReplicas == 3 && st.ReadyReplicas == 3 && st.AvailableReplicas == 3 && st.UnavailableReplicas == 0 && available && progressing
			if !ok {
				return false, fmt.Errorf("status %+v annotations %v", st, got.Annotations)
			}
			return true, nil
		})
	}
	waitComplete("1")

	cur, err := cs.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cur.Spec.Template.Spec.Containers[0].Image = "nginx:2"
	if _, err := cs.AppsV1().Deployments(ns).Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitComplete("2")
	rss, err := cs.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rss.Items) != 2 {
		t.Fatalf("%d ReplicaSets, want 2", len(rss.Items))
	}
	for _, rs := range rss.Items {
		rev := rs.Annotations["deployment.kubernetes.io/revision"]
		want := map[string]int32{"1": 0, "2": 3}[rev]
		if *rs.Spec.Replicas != want {
			t.Errorf("revision %s ReplicaSet %s has %d replicas, want %d", rev, rs.Name, *rs.Spec.Replicas, want)
		}
	}
}
