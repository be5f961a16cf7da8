package statefulset

import (
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

func newSet(name string, replicas int32, mutate ...func(*appsv1.StatefulSet)) *appsv1.StatefulSet {
	s := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID("uid-" + name), Generation: 1},
		Spec: appsv1.StatefulSetSpec{
			Replicas:    ptr.To(replicas),
			Selector:    &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			ServiceName: name,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "img:1"}}},
			},
			UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To[int32](0)}},
			PodManagementPolicy:  appsv1.OrderedReadyPodManagement,
			RevisionHistoryLimit: ptr.To[int32](10),
		},
	}
	for _, m := range mutate {
		m(s)
	}
	return s
}

// TestOrderedReadyScaleUp: under OrderedReady one Pod at a time is
// created, the next only once the previous is Running and Ready; Pods
// carry the identity and revision labels, hostname and subdomain, and
// the status counts them (upstream's ordered creation).
func TestOrderedReadyScaleUp(t *testing.T) {
	e := newEnv(t, newSet("web", 3))
	for i, name := range []string{"web-0", "web-1", "web-2"} {
		e.sync("ns", "web")
		if got := e.podNames("ns"); len(got) != i+1 || !slices.Contains(got, name) {
			t.Fatalf("after step %d pods = %v, want %s added", i, got, name)
		}
		e.sync("ns", "web") // not ready yet: nothing more
		if got := e.podNames("ns"); len(got) != i+1 {
			t.Fatalf("created %v before %s was ready", got, name)
		}
		e.markReady("ns", name)
	}
	e.sync("ns", "web")
	revs := e.revisions("ns")
	if len(revs) != 1 {
		t.Fatalf("revisions = %d, want 1", len(revs))
	}
	p := e.pod("ns", "web-1")
	want := map[string]string{"app": "web", appsv1.StatefulSetPodNameLabel: "web-1", appsv1.PodIndexLabel: "1",
		appsv1.StatefulSetRevisionLabel: revs[0].Name}
	for k, v := range want {
		if p.Labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, p.Labels[k], v)
		}
	}
	if p.Spec.Hostname != "web-1" || p.Spec.Subdomain != "web" {
		t.Errorf("hostname/subdomain = %q/%q", p.Spec.Hostname, p.Spec.Subdomain)
	}
	if ref := metav1.GetControllerOf(p); ref == nil || ref.Kind != "StatefulSet" || ref.Name != "web" {
		t.Errorf("controller ref = %+v", ref)
	}
	s := e.set("ns", "web").Status
	if s.Replicas != 3 || s.ReadyReplicas != 3 || s.AvailableReplicas != 3 || s.CurrentReplicas != 3 || s.UpdatedReplicas != 3 ||
		s.CurrentRevision != revs[0].Name || s.UpdateRevision != revs[0].Name || s.ObservedGeneration != 1 || s.CollisionCount == nil {
		t.Errorf("status = %+v", s)
	}
}

// TestParallelAndOrdinalsStart: Parallel creates every Pod in one sync;
// spec.ordinals.start numbers them from there.
func TestParallelAndOrdinalsStart(t *testing.T) {
	e := newEnv(t, newSet("db", 3, func(s *appsv1.StatefulSet) {
		s.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
		s.Spec.Ordinals = &appsv1.StatefulSetOrdinals{Start: 5}
	}))
	e.sync("ns", "db")
	got := e.podNames("ns")
	slices.Sort(got)
	if !slices.Equal(got, []string{"db-5", "db-6", "db-7"}) {
		t.Fatalf("pods = %v", got)
	}
	if l := e.pod("ns", "db-6").Labels[appsv1.PodIndexLabel]; l != "6" {
		t.Errorf("pod-index = %q", l)
	}
}

// readySet builds a set with n ready Pods.
func readySet(t *testing.T, n int32, mutate ...func(*appsv1.StatefulSet)) *env {
	t.Helper()
	mutate = append([]func(*appsv1.StatefulSet){func(s *appsv1.StatefulSet) { s.Spec.PodManagementPolicy = appsv1.ParallelPodManagement }}, mutate...)
	e := newEnv(t, newSet("web", n, mutate...))
	e.sync("ns", "web")
	for _, name := range e.podNames("ns") {
		e.markReady("ns", name)
	}
	e.sync("ns", "web")
	return e
}

func (e *env) updateSet(mutate func(*appsv1.StatefulSet)) {
	e.t.Helper()
	s := e.set("ns", "web")
	mutate(s)
	s.Generation++
	if _, err := e.client.AppsV1().StatefulSets("ns").Update(e.ctx, s, metav1.UpdateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

// TestOrderedScaleDown: OrderedReady removes the highest ordinal first,
// one at a time.
func TestOrderedScaleDown(t *testing.T) {
	e := readySet(t, 3)
	e.updateSet(func(s *appsv1.StatefulSet) {
		s.Spec.Replicas = ptr.To[int32](1)
		s.Spec.PodManagementPolicy = appsv1.OrderedReadyPodManagement
	})
	e.sync("ns", "web")
	got := e.podNames("ns")
	slices.Sort(got)
	if !slices.Equal(got, []string{"web-0", "web-1"}) {
		t.Fatalf("after one sync pods = %v, want web-2 gone only", got)
	}
	e.sync("ns", "web")
	if got := e.podNames("ns"); !slices.Equal(got, []string{"web-0"}) {
		t.Fatalf("pods = %v", got)
	}
}

// TestRollingUpdateWithPartition: a new template gets a second revision;
// Pods at or above the partition are replaced from the highest ordinal,
// one at a time, those below keep the current revision.
func TestRollingUpdateWithPartition(t *testing.T) {
	e := readySet(t, 3)
	oldRev := e.set("ns", "web").Status.CurrentRevision
	e.updateSet(func(s *appsv1.StatefulSet) {
		s.Spec.Template.Spec.Containers[0].Image = "img:2"
		s.Spec.UpdateStrategy.RollingUpdate.Partition = ptr.To[int32](1)
	})
	for range 2 {
		e.sync("ns", "web") // deletes the highest old Pod
		e.sync("ns", "web") // recreates it at the update revision
		for _, n := range e.podNames("ns") {
			if e.pod("ns", n).Status.Phase == corev1.PodPending {
				e.markReady("ns", n)
			}
		}
	}
	e.sync("ns", "web")
	s := e.set("ns", "web").Status
	if s.UpdateRevision == oldRev || s.CurrentRevision != oldRev || s.UpdatedReplicas != 2 || s.CurrentReplicas != 1 {
		t.Fatalf("status = %+v (old revision %s)", s, oldRev)
	}
	for name, want := range map[string]string{"web-0": "img:1", "web-1": "img:2", "web-2": "img:2"} {
		if got := e.pod("ns", name).Spec.Containers[0].Image; got != want {
			t.Errorf("%s image = %s, want %s", name, got, want)
		}
	}
	if n := len(e.revisions("ns")); n != 2 {
		t.Errorf("revisions = %d, want 2", n)
	}
	// Lifting the partition finishes the update; the new revision becomes current.
	e.updateSet(func(s *appsv1.StatefulSet) { s.Spec.UpdateStrategy.RollingUpdate.Partition = ptr.To[int32](0) })
	e.sync("ns", "web")
	e.sync("ns", "web")
	e.markReady("ns", "web-0")
	e.sync("ns", "web")
	s = e.set("ns", "web").Status
	if s.CurrentRevision != s.UpdateRevision || s.CurrentReplicas != 3 {
		t.Fatalf("status after the update = %+v", s)
	}
}

// TestOnDelete: a template change replaces nothing until a Pod is
// deleted; its replacement runs the new template.
func TestOnDelete(t *testing.T) {
	e := readySet(t, 2, func(s *appsv1.StatefulSet) {
		s.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType}
	})
	e.updateSet(func(s *appsv1.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = "img:2" })
	e.sync("ns", "web")
	e.sync("ns", "web")
	if len(e.podNames("ns")) != 2 || e.pod("ns", "web-1").Spec.Containers[0].Image != "img:1" {
		t.Fatal("OnDelete replaced a Pod by itself")
	}
	if err := e.client.CoreV1().Pods("ns").Delete(e.ctx, "web-1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.sync("ns", "web")
	if got := e.pod("ns", "web-1").Spec.Containers[0].Image; got != "img:2" {
		t.Fatalf("replacement image = %s", got)
	}
}

// TestFailedPodReplaced: a Failed Pod is deleted and created again.
func TestFailedPodReplaced(t *testing.T) {
	e := readySet(t, 1)
	p := e.pod("ns", "web-0")
	p.Status.Phase = corev1.PodFailed
	if _, err := e.client.CoreV1().Pods("ns").UpdateStatus(e.ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.sync("ns", "web")
	if len(e.podNames("ns")) != 0 {
		t.Fatal("failed Pod not deleted")
	}
	e.sync("ns", "web")
	if e.pod("ns", "web-0").Status.Phase != corev1.PodPending {
		t.Fatal("not recreated")
	}
}

func withClaims(whenDeleted, whenScaled appsv1.PersistentVolumeClaimRetentionPolicyType) func(*appsv1.StatefulSet) {
	return func(s *appsv1.StatefulSet) {
		s.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{
			ObjectMeta: metav1.ObjectMeta{Name: "www"},
			Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}},
		}}
		s.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenDeleted: whenDeleted, WhenScaled: whenScaled}
	}
}

func (e *env) claimOwners(name string) []string {
	e.t.Helper()
	c, err := e.client.CoreV1().PersistentVolumeClaims("ns").Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, r := range c.OwnerReferences {
		if r.Controller == nil || !*r.Controller {
			e.t.Errorf("claim %s: owner %s/%s is not a controller reference", name, r.Kind, r.Name)
		}
		out = append(out, r.Kind+"/"+r.Name)
	}
	return out
}

// TestClaimTemplatesAndRetention: each Pod gets <claim>-<set>-<i> with
// the selector's labels and a volume using it; the retention policy
// decides the claims' owners, and a scaled-down Pod's claim passes to
// the Pod before it is deleted when whenScaled is Delete.
func TestClaimTemplatesAndRetention(t *testing.T) {
	const retain, del = appsv1.RetainPersistentVolumeClaimRetentionPolicyType, appsv1.DeletePersistentVolumeClaimRetentionPolicyType
	tests := []struct {
		name                    string
		whenDeleted, whenScaled appsv1.PersistentVolumeClaimRetentionPolicyType
		inRange, scaledDown     []string
	}{
		{"retain/retain", retain, retain, nil, nil},
		{"delete/retain", del, retain, []string{"StatefulSet/web"}, []string{"StatefulSet/web"}},
		{"retain/delete", retain, del, nil, []string{"Pod/web-1"}},
		{"delete/delete", del, del, []string{"StatefulSet/web"}, []string{"Pod/web-1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := readySet(t, 2, withClaims(tc.whenDeleted, tc.whenScaled))
			c, err := e.client.CoreV1().PersistentVolumeClaims("ns").Get(e.ctx, "www-web-1", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if c.Labels["app"] != "web" {
				t.Errorf("claim labels = %v", c.Labels)
			}
			v := e.pod("ns", "web-1").Spec.Volumes
			if len(v) != 1 || v[0].Name != "www" || v[0].PersistentVolumeClaim.ClaimName != "www-web-1" {
				t.Errorf("volumes = %+v", v)
			}
			if got := e.claimOwners("www-web-1"); !slices.Equal(got, tc.inRange) {
				t.Errorf("owners in range = %v, want %v", got, tc.inRange)
			}
			e.updateSet(func(s *appsv1.StatefulSet) { s.Spec.Replicas = ptr.To[int32](1) })
			e.sync("ns", "web")
			if got := e.claimOwners("www-web-1"); !slices.Equal(got, tc.scaledDown) {
				t.Errorf("owners scaled down = %v, want %v", got, tc.scaledDown)
			}
		})
	}
}

// TestRevisionHistoryLimit: unused revisions beyond the limit go, oldest
// first; one the Pods or status still use stays.
func TestRevisionHistoryLimit(t *testing.T) {
	e := readySet(t, 1, func(s *appsv1.StatefulSet) {
		s.Spec.RevisionHistoryLimit = ptr.To[int32](1)
		s.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType}
	})
	for _, img := range []string{"img:2", "img:3", "img:4"} {
		e.updateSet(func(s *appsv1.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = img })
		e.sync("ns", "web")
	}
	// Live: current (img:1, the Pod's) and update (img:4); one of the
	// two dead ones (img:2, img:3) stays.
	if n := len(e.revisions("ns")); n != 3 {
		t.Fatalf("revisions = %d, want 3", n)
	}
	// Going back to img:1 reuses the first revision under a new number.
	e.updateSet(func(s *appsv1.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = "img:1" })
	e.sync("ns", "web")
	s := e.set("ns", "web").Status
	if s.UpdateRevision != s.CurrentRevision {
		t.Fatalf("status = %+v: the old template's revision was not reused", s)
	}
}

// TestAdoptsOrphans: an orphan Pod named as a member and matching the
// selector is adopted instead of created again; one named otherwise is
// left alone.
func TestAdoptsOrphans(t *testing.T) {
	orphan := func(name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID(name), Labels: map[string]string{"app": "web"}},
			Status: corev1.PodStatus{Phase: corev1.PodPending}}
	}
	e := newEnv(t, newSet("web", 1), orphan("web-0"), orphan("cache-0"))
	e.sync("ns", "web")
	if ref := metav1.GetControllerOf(e.pod("ns", "web-0")); ref == nil || ref.Name != "web" {
		t.Errorf("web-0 not adopted: %+v", e.pod("ns", "web-0").OwnerReferences)
	}
	if len(e.pod("ns", "cache-0").OwnerReferences) != 0 {
		t.Error("cache-0 adopted")
	}
	if n := len(e.podNames("ns")); n != 2 {
		t.Errorf("pods = %d", n)
	}
}
