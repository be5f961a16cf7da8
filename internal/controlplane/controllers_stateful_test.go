package controlplane

import (
	"context"
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// TestStatefulControllersThroughTheServer runs the statefulset,
// daemonset and disruption controllers behind a real server, with the
// test playing the kubelet by setting Pod status.
func TestStatefulControllersThroughTheServer(t *testing.T) {
	s := startServer(t, "memory")
	cs := kubernetes.NewForConfigOrDie(s.restCfg)
	t.Run("statefulset scales up in order", func(t *testing.T) { testStatefulSetInOrder(t, cs) })
	t.Run("daemonset puts a pod on each node", func(t *testing.T) { testDaemonSetPerNode(t, cs) })
	t.Run("pdb status follows readiness", func(t *testing.T) { testPDBFollowsReadiness(t, cs) })
}

func markPodReady(t *testing.T, cs kubernetes.Interface, ns, name string) {
	t.Helper()
	ctx := context.Background()
	p, err := cs.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.Status.Phase = corev1.PodRunning
	p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Now()})
	if _, err := cs.CoreV1().Pods(ns).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func testStatefulSetInOrder(t *testing.T, cs kubernetes.Interface) {
	ctx := context.Background()
	set := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "bench"},
		Spec: appsv1.StatefulSetSpec{
			Replicas:    ptr.To[int32](3),
			ServiceName: "web",
			Selector:    &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
			},
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{
				ObjectMeta: metav1.ObjectMeta{Name: "www"},
				Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}},
			}},
			PersistentVolumeClaimRetentionPolicy: &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
				WhenDeleted: appsv1.DeletePersistentVolumeClaimRetentionPolicyType, WhenScaled: appsv1.RetainPersistentVolumeClaimRetentionPolicyType},
		},
	}
	if _, err := cs.AppsV1().StatefulSets("bench").Create(ctx, set, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		name := fmt.Sprintf("web-%d", i)
		poll(t, name+" created", func(ctx context.Context) (bool, error) {
			_, err := cs.CoreV1().Pods("bench").Get(ctx, name, metav1.GetOptions{})
			return err == nil, err
		})
		// Nothing past it exists before it is ready.
		pods, err := cs.CoreV1().Pods("bench").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil || len(pods.Items) != i+1 {
			t.Fatalf("pods before %s is ready: %d (%v)", name, len(pods.Items), err)
		}
		markPodReady(t, cs, "bench", name)
	}
	poll(t, "statefulset status", func(ctx context.Context) (bool, error) {
		got, err := cs.AppsV1().StatefulSets("bench").Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		st := got.Status
		return st.ReadyReplicas == 3 && st.AvailableReplicas == 3 && st.CurrentReplicas == 3 && st.UpdatedReplicas == 3 &&
			st.ObservedGeneration == got.Generation && st.CurrentRevision != "" && st.CurrentRevision == st.UpdateRevision, nil
	})
	claim, err := cs.CoreV1().PersistentVolumeClaims("bench").Get(ctx, "www-web-2", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ref := metav1.GetControllerOf(claim); ref == nil || ref.Kind != "StatefulSet" || ref.Name != "web" {
		t.Errorf("claim owner = %+v", claim.OwnerReferences)
	}
	revs, err := cs.AppsV1().ControllerRevisions("bench").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil || len(revs.Items) != 1 {
		t.Fatalf("revisions = %v (%v)", revs, err)
	}
}

func testDaemonSetPerNode(t *testing.T, cs kubernetes.Interface) {
	ctx := context.Background()
	for _, n := range []string{"node-a", "node-b", "node-c"} {
		node, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// Admission taints a new node not-ready:NoSchedule, which daemon
		// Pods do not tolerate; the node lifecycle controller lifts it
		// once the kubelet reports Ready. Play that part.
		node.Spec.Taints = nil
		if _, err := cs.CoreV1().Nodes().Update(ctx, node, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "bench"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "agent"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "agent"}}},
			},
		},
	}
	if _, err := cs.AppsV1().DaemonSets("bench").Create(ctx, ds, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var pods *corev1.PodList
	poll(t, "a pod per node", func(ctx context.Context) (bool, error) {
		var err error
		pods, err = cs.CoreV1().Pods("bench").List(ctx, metav1.ListOptions{LabelSelector: "app=agent"})
		return err == nil && len(pods.Items) == 3, err
	})
	nodes := map[string]bool{}
	for _, p := range pods.Items {
		terms := p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
		nodes[terms[0].MatchFields[0].Values[0]] = true
		if p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == "" || p.Labels["pod-template-generation"] != "1" {
			t.Errorf("pod %s labels = %v", p.Name, p.Labels)
		}
		markPodReady(t, cs, "bench", p.Name)
	}
	if len(nodes) != 3 {
		t.Fatalf("pods target %v", nodes)
	}
	poll(t, "daemonset status", func(ctx context.Context) (bool, error) {
		got, err := cs.AppsV1().DaemonSets("bench").Get(ctx, "agent", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		st := got.Status
		return st.DesiredNumberScheduled == 3 && st.CurrentNumberScheduled == 3 && st.NumberReady == 3 &&
			st.NumberAvailable == 3 && st.UpdatedNumberScheduled == 3 && st.ObservedGeneration == got.Generation, nil
	})
}

func testPDBFollowsReadiness(t *testing.T, cs kubernetes.Interface) {
	ctx := context.Background()
	for _, n := range []string{"db-a", "db-b"} {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: n, Namespace: "bench", Labels: map[string]string{"app": "db"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "db"}}}}
		if _, err := cs.CoreV1().Pods("bench").Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "bench"},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.FromInt32(1)),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}},
	}
	if _, err := cs.PolicyV1().PodDisruptionBudgets("bench").Create(ctx, pdb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPDB := func(healthy, allowed int32, reason string) {
		t.Helper()
		poll(t, fmt.Sprintf("pdb healthy=%d allowed=%d %s", healthy, allowed, reason), func(ctx context.Context) (bool, error) {
			got, err := cs.PolicyV1().PodDisruptionBudgets("bench").Get(ctx, "db", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			c := apimeta.FindStatusCondition(got.Status.Conditions, policyv1.DisruptionAllowedCondition)
			return got.Status.ObservedGeneration == got.Generation && got.Status.ExpectedPods == 2 && got.Status.DesiredHealthy == 1 &&
				got.Status.CurrentHealthy == healthy && got.Status.DisruptionsAllowed == allowed && c != nil && c.Reason == reason, nil
		})
	}
	waitPDB(0, 0, policyv1.InsufficientPodsReason)
	markPodReady(t, cs, "bench", "db-a")
	markPodReady(t, cs, "bench", "db-b")
	waitPDB(2, 1, policyv1.SufficientPodsReason)
	// The eviction API consumes the allowed disruption.
	if err := cs.CoreV1().Pods("bench").EvictV1(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "db-a", Namespace: "bench"}}); err != nil {
		t.Fatal(err)
	}
	err := cs.CoreV1().Pods("bench").EvictV1(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "db-b", Namespace: "bench"}})
	if err == nil {
		t.Fatal("a second eviction was allowed")
	}
}
