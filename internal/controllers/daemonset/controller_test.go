package daemonset

import (
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

func newDS(mutate ...func(*appsv1.DaemonSet)) *appsv1.DaemonSet {
	d := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "ds", Namespace: "ns", UID: "ds-uid", Generation: 1,
			Annotations: map[string]string{TemplateGenerationAnnotation: "1"}},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "d"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "d"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "img:1"}}},
			},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptr.To(intstr.FromInt32(1)), MaxSurge: ptr.To(intstr.FromInt32(0))}},
			RevisionHistoryLimit: ptr.To[int32](10),
		},
	}
	for _, m := range mutate {
		m(d)
	}
	return d
}

// TestOnePodPerNode: a Pod for each Node the node selector admits, none
// for the other; each Pod has generateName <ds>-, a metadata.name node
// affinity (no nodeName), upstream's default tolerations, the hash and
// template generation labels; the status follows readiness.
func TestOnePodPerNode(t *testing.T) {
	e := newEnv(t, newDS(func(d *appsv1.DaemonSet) { d.Spec.Template.Spec.NodeSelector = map[string]string{"role": "w"} }),
		node("n1", map[string]string{"role": "w"}), node("n2", map[string]string{"role": "w"}),
		node("n3", map[string]string{"role": "w"}), node("other", nil))
	e.sync()
	byNode := e.podNodes()
	if len(byNode) != 3 || len(byNode["n1"]) != 1 || len(byNode["n2"]) != 1 || len(byNode["n3"]) != 1 {
		t.Fatalf("pods by node = %v", byNode)
	}
	p := byNode["n2"][0]
	revs, _ := e.client.AppsV1().ControllerRevisions("ns").List(e.ctx, metav1.ListOptions{})
	if len(revs.Items) != 1 {
		t.Fatalf("revisions = %d", len(revs.Items))
	}
	hash := revs.Items[0].Labels[appsv1.DefaultDaemonSetUniqueLabelKey]
	if revs.Items[0].Name != "ds-"+hash || revs.Items[0].Revision != 1 {
		t.Errorf("revision = %s #%d", revs.Items[0].Name, revs.Items[0].Revision)
	}
	if p.GenerateName != "ds-" || p.Spec.NodeName != "" || p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] != hash ||
		p.Labels[TemplateGenerationLabel] != "1" || p.Labels["app"] != "d" {
		t.Errorf("pod = %s/%s nodeName %q labels %v", p.GenerateName, p.Name, p.Spec.NodeName, p.Labels)
	}
	terms := p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	if len(terms) != 1 || len(terms[0].MatchFields) != 1 || terms[0].MatchFields[0].Key != "metadata.name" || terms[0].MatchFields[0].Values[0] != "n2" {
		t.Errorf("affinity = %+v", terms)
	}
	var keys []string
	for _, tol := range p.Spec.Tolerations {
		keys = append(keys, tol.Key+":"+string(tol.Effect))
	}
	want := []string{"node.kubernetes.io/not-ready:NoExecute", "node.kubernetes.io/unreachable:NoExecute",
		"node.kubernetes.io/disk-pressure:NoSchedule", "node.kubernetes.io/memory-pressure:NoSchedule",
		"node.kubernetes.io/pid-pressure:NoSchedule", "node.kubernetes.io/unschedulable:NoSchedule"}
	if !slices.Equal(keys, want) {
		t.Errorf("tolerations = %v", keys)
	}
	e.sync() // the status counts what the cache held when the sync began
	s := e.ds().Status
	if s.DesiredNumberScheduled != 3 || s.CurrentNumberScheduled != 3 || s.NumberReady != 0 || s.NumberUnavailable != 3 ||
		s.UpdatedNumberScheduled != 3 || s.ObservedGeneration != 1 {
		t.Errorf("status = %+v", s)
	}
	e.markAllReady()
	e.sync()
	s = e.ds().Status
	if s.NumberReady != 3 || s.NumberAvailable != 3 || s.NumberUnavailable != 0 {
		t.Errorf("status = %+v", s)
	}
	if len(e.pods()) != 3 {
		t.Errorf("pods = %d after a second sync", len(e.pods()))
	}
}

// TestTaintsAndPlacementChanges: an untolerated NoSchedule taint keeps a
// new Pod off but lets an existing one stay (misscheduled); an
// untolerated NoExecute taint or a node selector no longer matching
// removes it; a node problem taint is tolerated by default.
func TestTaintsAndPlacementChanges(t *testing.T) {
	noSched := corev1.Taint{Key: "k", Effect: corev1.TaintEffectNoSchedule}
	e := newEnv(t, newDS(func(d *appsv1.DaemonSet) { d.Spec.Template.Spec.NodeSelector = map[string]string{"role": "w"} }),
		node("tainted", map[string]string{"role": "w"}, noSched),
		node("notready", map[string]string{"role": "w"}, corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute}),
		node("a", map[string]string{"role": "w"}), node("b", map[string]string{"role": "w"}))
	e.sync()
	byNode := e.podNodes()
	if len(byNode["tainted"]) != 0 || len(byNode["notready"]) != 1 || len(byNode["a"]) != 1 {
		t.Fatalf("pods by node = %v", byNode)
	}
	setNode := func(name string, mutate func(*corev1.Node)) {
		n, _ := e.client.CoreV1().Nodes().Get(e.ctx, name, metav1.GetOptions{})
		mutate(n)
		if _, err := e.client.CoreV1().Nodes().Update(e.ctx, n, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	setNode("a", func(n *corev1.Node) { n.Spec.Taints = []corev1.Taint{noSched} })
	setNode("b", func(n *corev1.Node) { n.Labels = nil })
	setNode("notready", func(n *corev1.Node) {
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: "evict", Effect: corev1.TaintEffectNoExecute})
	})
	e.sync()
	byNode = e.podNodes()
	if len(byNode["a"]) != 1 || len(byNode["b"]) != 0 || len(byNode["notready"]) != 0 {
		t.Fatalf("pods by node = %v", byNode)
	}
	e.sync()
	if s := e.ds().Status; s.DesiredNumberScheduled != 0 || s.NumberMisscheduled != 1 {
		t.Errorf("status = %+v", s)
	}
}

func threeNodes() []runtime.Object {
	return []runtime.Object{node("n1", nil), node("n2", nil), node("n3", nil)}
}

// TestRollingUpdateMaxUnavailable: a new template replaces old Pods one
// node at a time, each only after the previous new Pod is available.
func TestRollingUpdateMaxUnavailable(t *testing.T) {
	e := newEnv(t, append(threeNodes(), newDS())...)
	e.sync()
	e.markAllReady()
	e.sync()
	e.updateDS(func(d *appsv1.DaemonSet) { d.Spec.Template.Spec.Containers[0].Image = "img:2" })
	for round := 1; round <= 3; round++ {
		e.sync() // deletes one old Pod
		if n := len(e.pods()); n != 2 {
			t.Fatalf("round %d: %d pods after the delete, want 2", round, n)
		}
		e.sync() // creates its replacement
		e.sync() // the replacement is not ready: nothing else goes
		if n := len(e.pods()); n != 3 {
			t.Fatalf("round %d: %d pods, want 3", round, n)
		}
		e.markAllReady()
	}
	e.sync()
	for _, p := range e.pods() {
		if p.Spec.Containers[0].Image != "img:2" || p.Labels[TemplateGenerationLabel] != "2" {
			t.Errorf("pod %s still old", p.Name)
		}
	}
	if s := e.ds().Status; s.UpdatedNumberScheduled != 3 || s.NumberAvailable != 3 || s.ObservedGeneration != 2 {
		t.Errorf("status = %+v", s)
	}
	revs, _ := e.client.AppsV1().ControllerRevisions("ns").List(e.ctx, metav1.ListOptions{})
	if len(revs.Items) != 2 {
		t.Errorf("revisions = %d, want 2", len(revs.Items))
	}
}

// TestRollingUpdateSurge: with maxSurge 1 and maxUnavailable 0 a new Pod
// starts next to the old one, which goes once the new one is available.
func TestRollingUpdateSurge(t *testing.T) {
	e := newEnv(t, node("n1", nil), newDS(func(d *appsv1.DaemonSet) {
		d.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptr.To(intstr.FromInt32(0)), MaxSurge: ptr.To(intstr.FromInt32(1))}
	}))
	e.sync()
	e.markAllReady()
	e.updateDS(func(d *appsv1.DaemonSet) { d.Spec.Template.Spec.Containers[0].Image = "img:2" })
	e.sync()
	if n := len(e.pods()); n != 2 {
		t.Fatalf("pods = %d, want old and new", n)
	}
	e.sync()
	if n := len(e.pods()); n != 2 {
		t.Fatalf("pods = %d while the new one is not ready", n)
	}
	e.markAllReady()
	e.sync()
	pods := e.pods()
	if len(pods) != 1 || pods[0].Spec.Containers[0].Image != "img:2" {
		t.Fatalf("pods = %+v", pods)
	}
}

// TestOnDeleteAndExpectations: OnDelete leaves old Pods alone; a sync on
// a cache that has not seen the last creations creates nothing more.
func TestOnDeleteAndExpectations(t *testing.T) {
	e := newEnv(t, append(threeNodes(), newDS(func(d *appsv1.DaemonSet) {
		d.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
	}))...)
	e.refresh()
	if err := e.c.Sync(e.ctx, "ns/ds"); err != nil {
		t.Fatal(err)
	}
	if err := e.c.Sync(e.ctx, "ns/ds"); err != nil { // stale cache
		t.Fatal(err)
	}
	if n := len(e.pods()); n != 3 {
		t.Fatalf("pods = %d, want 3", n)
	}
	e.refresh()
	e.markAllReady()
	e.updateDS(func(d *appsv1.DaemonSet) { d.Spec.Template.Spec.Containers[0].Image = "img:2" })
	e.sync()
	e.sync()
	for _, p := range e.pods() {
		if p.Spec.Containers[0].Image != "img:1" {
			t.Fatal("OnDelete replaced a Pod")
		}
	}
	victim := e.pods()[0].Name
	if err := e.client.CoreV1().Pods("ns").Delete(e.ctx, victim, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.sync()
	images := map[string]int{}
	for _, p := range e.pods() {
		images[p.Spec.Containers[0].Image]++
	}
	if images["img:1"] != 2 || images["img:2"] != 1 {
		t.Fatalf("images = %v", images)
	}
	e.sync()
	if s := e.ds().Status; s.UpdatedNumberScheduled != 1 {
		t.Errorf("status = %+v", s)
	}
}
