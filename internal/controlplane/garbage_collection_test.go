package controlplane

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// gcEnv is a running server with the clients a garbage collection test
// uses, in namespace ns.
type gcEnv struct {
	t  *testing.T
	cs kubernetes.Interface
	dc dynamic.Interface
	ns string
}

func newGCEnv(t *testing.T, opts ...func(*Config)) *gcEnv {
	s := startServer(t, "memory", opts...)
	e := &gcEnv{t: t, cs: kubernetes.NewForConfigOrDie(s.restCfg), dc: dynamic.NewForConfigOrDie(s.restCfg), ns: "bench"}
	for _, ns := range []string{"gc-other"} {
		if _, err := e.cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// ref is an owner reference to obj.
func ref(obj metav1.Object, apiVersion, kind string, block bool) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: obj.GetName(), UID: obj.GetUID(), BlockOwnerDeletion: &block}
}

func (e *gcEnv) configMap(ns, name string, owners ...metav1.OwnerReference) *corev1.ConfigMap {
	e.t.Helper()
	cm, err := e.cs.CoreV1().ConfigMaps(ns).Create(context.Background(), &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, OwnerReferences: owners},
	}, metav1.CreateOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return cm
}

func (e *gcEnv) cmRef(cm *corev1.ConfigMap, block bool) metav1.OwnerReference {
	return ref(cm, "v1", "ConfigMap", block)
}

func (e *gcEnv) deleteCM(name string, p metav1.DeletionPropagation) {
	e.t.Helper()
	if err := e.cs.CoreV1().ConfigMaps(e.ns).Delete(context.Background(), name, metav1.DeleteOptions{PropagationPolicy: &p}); err != nil {
		e.t.Fatal(err)
	}
}

// gone waits until get says NotFound.
func (e *gcEnv) gone(what string, get func(ctx context.Context) error) {
	e.t.Helper()
	poll(e.t, what+" deleted", func(ctx context.Context) (bool, error) {
		err := get(ctx)
		return apierrors.IsNotFound(err), err
	})
}

func (e *gcEnv) cmGone(ns, name string) {
	e.t.Helper()
	e.gone("configmap "+ns+"/"+name, func(ctx context.Context) error {
		_, err := e.cs.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
		return err
	})
}

// cmOwners waits until the configmap's owner references are want (by uid).
func (e *gcEnv) cmOwners(name string, want ...types.UID) {
	e.t.Helper()
	poll(e.t, fmt.Sprintf("configmap %s owned by %v", name, want), func(ctx context.Context) (bool, error) {
		cm, err := e.cs.CoreV1().ConfigMaps(e.ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		var got []types.UID
		for _, r := range cm.OwnerReferences {
			got = append(got, r.UID)
		}
		return slices.Equal(got, want), fmt.Errorf("owners %v", got)
	})
}

// cmObservedByGC returns once the garbage collector has the configmap in
// its graph: it adds a reference to an owner that never existed and waits
// for the collector to patch it out. An orphaning delete right after a
// dependent's create otherwise races the dependent's informer event, as
// it does upstream: the owner's finalizer may go before the collector
// knows the dependent, which then looks dangling and is deleted.
func (e *gcEnv) cmObservedByGC(name string) {
	e.t.Helper()
	ctx := context.Background()
	cms := e.cs.CoreV1().ConfigMaps(e.ns)
	cm, err := cms.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	want := cm.OwnerReferences
	probe := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "gc-probe-never-existed", UID: "gc-probe-" + cm.UID}
	cm.OwnerReferences = append(slices.Clone(want), probe)
	if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	var uids []types.UID
	for _, r := range want {
		uids = append(uids, r.UID)
	}
	e.cmOwners(name, uids...)
}

// TestGarbageCollectionConfigMaps pins upstream's propagation on
// ConfigMap owners: background deletes the dependents after the owner,
// orphan keeps them without the reference, foreground deletes them
// first, a dependency cycle under foreground does not deadlock, a
// reference to an absent owner deletes the dependent (or is patched out
// when another owner exists), and an owner named from another namespace
// is absent there (with upstream's warning event).
func TestGarbageCollectionConfigMaps(t *testing.T) {
	e := newGCEnv(t)
	ctx := context.Background()
	t.Run("background", func(t *testing.T) {
		owner := e.configMap(e.ns, "bg-owner")
		e.configMap(e.ns, "bg-dep1", e.cmRef(owner, false))
		e.configMap(e.ns, "bg-dep2", e.cmRef(owner, true))
		e.deleteCM("bg-owner", metav1.DeletePropagationBackground)
		e.cmGone(e.ns, "bg-owner")
		e.cmGone(e.ns, "bg-dep1")
		e.cmGone(e.ns, "bg-dep2")
	})
	t.Run("orphan", func(t *testing.T) {
		owner := e.configMap(e.ns, "or-owner")
		other := e.configMap(e.ns, "or-other")
		e.configMap(e.ns, "or-dep", e.cmRef(owner, true), e.cmRef(other, false))
		e.cmObservedByGC("or-dep")
		e.deleteCM("or-owner", metav1.DeletePropagationOrphan)
		e.cmGone(e.ns, "or-owner")
		e.cmOwners("or-dep", other.UID)
	})
	t.Run("foreground", func(t *testing.T) {
		owner := e.configMap(e.ns, "fg-owner")
		e.configMap(e.ns, "fg-dep", e.cmRef(owner, true))
		e.deleteCM("fg-owner", metav1.DeletePropagationForeground)
		e.cmGone(e.ns, "fg-dep")
		e.cmGone(e.ns, "fg-owner")
	})
	t.Run("cycle-foreground", func(t *testing.T) {
		a := e.configMap(e.ns, "cy-a")
		b := e.configMap(e.ns, "cy-b", e.cmRef(a, true))
		c := e.configMap(e.ns, "cy-c", e.cmRef(b, true))
		a.OwnerReferences = []metav1.OwnerReference{e.cmRef(c, true)}
		if _, err := e.cs.CoreV1().ConfigMaps(e.ns).Update(ctx, a, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		e.deleteCM("cy-a", metav1.DeletePropagationForeground)
		for _, n := range []string{"cy-a", "cy-b", "cy-c"} {
			e.cmGone(e.ns, n)
		}
	})
	t.Run("dangling", func(t *testing.T) {
		absent := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "never", UID: "00000000-0000-0000-0000-00000000dead"}
		e.configMap(e.ns, "dg-only", absent)
		owner := e.configMap(e.ns, "dg-owner")
		e.configMap(e.ns, "dg-mixed", absent, e.cmRef(owner, false))
		e.cmGone(e.ns, "dg-only")
		e.cmOwners("dg-mixed", owner.UID)
	})
	t.Run("cross-namespace", func(t *testing.T) {
		owner := e.configMap(e.ns, "xn-owner")
		e.configMap("gc-other", "xn-dep", e.cmRef(owner, false))
		e.cmGone("gc-other", "xn-dep")
		if _, err := e.cs.CoreV1().ConfigMaps(e.ns).Get(ctx, "xn-owner", metav1.GetOptions{}); err != nil {
			t.Fatalf("the owner must stay: %v", err)
		}
		poll(t, "OwnerRefInvalidNamespace event", func(ctx context.Context) (bool, error) {
			list, err := e.cs.CoreV1().Events("gc-other").List(ctx, metav1.ListOptions{
				FieldSelector: fields.OneTermEqualSelector("reason", "OwnerRefInvalidNamespace").String(),
			})
			if err != nil || len(list.Items) == 0 {
				return false, err
			}
			ev := list.Items[0]
			want := fmt.Sprintf(`ownerRef [v1/ConfigMap, namespace: gc-other, name: xn-owner, uid: %s] does not exist in namespace "gc-other"`, owner.UID)
			if ev.Type != corev1.EventTypeWarning || ev.Message != want || ev.InvolvedObject.Name != "xn-dep" || ev.Source.Component != "garbage-collector-controller" {
				return false, fmt.Errorf("event %s %q on %s from %s, want Warning %q", ev.Type, ev.Message, ev.InvolvedObject.Name, ev.Source.Component, want)
			}
			return true, nil
		})
	})
}

// TestGarbageCollectionBlockOwnerDeletion: a foreground deletion waits
// for the dependents with blockOwnerDeletion (here held by a finalizer)
// and not for the others.
func TestGarbageCollectionBlockOwnerDeletion(t *testing.T) {
	e := newGCEnv(t)
	ctx := context.Background()
	cms := e.cs.CoreV1().ConfigMaps(e.ns)
	held := func(name string, owner metav1.OwnerReference) {
		if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Name: name, OwnerReferences: []metav1.OwnerReference{owner}, Finalizers: []string{"example.com/hold"},
		}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	terminating := func(name string) {
		poll(t, name+" terminating", func(ctx context.Context) (bool, error) {
			cm, err := cms.Get(ctx, name, metav1.GetOptions{})
			return err == nil && cm.DeletionTimestamp != nil, err
		})
	}
	release := func(name string) {
		if _, err := cms.Patch(ctx, name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	loose := e.configMap(e.ns, "loose-owner")
	held("loose-dep", e.cmRef(loose, false))
	e.deleteCM("loose-owner", metav1.DeletePropagationForeground)
	terminating("loose-dep")
	e.cmGone(e.ns, "loose-owner")
	release("loose-dep")
	e.cmGone(e.ns, "loose-dep")

	blocked := e.configMap(e.ns, "blocked-owner")
	held("blocking-dep", e.cmRef(blocked, true))
	e.deleteCM("blocked-owner", metav1.DeletePropagationForeground)
	terminating("blocking-dep")
	owner, err := cms.Get(ctx, "blocked-owner", metav1.GetOptions{})
	if err != nil || owner.DeletionTimestamp == nil || !slices.Equal(owner.Finalizers, []string{metav1.FinalizerDeleteDependents}) {
		t.Fatalf("owner while its blocking dependent exists: %v (err %v), want it terminating with foregroundDeletion", owner, err)
	}
	release("blocking-dep")
	e.cmGone(e.ns, "blocking-dep")
	e.cmGone(e.ns, "blocked-owner")
}

// TestGarbageCollectionWorkloads: Deployment → ReplicaSet → Pod built by
// the test with controller references, deleted with each policy. The
// deployment and replicaset controllers are off: they would release the
// hand-built, unlabelled ReplicaSet and resize it, as upstream's do.
func TestGarbageCollectionWorkloads(t *testing.T) {
	e := newGCEnv(t, func(c *Config) { c.Controllers = []string{"*", "-deployment-controller", "-replicaset-controller"} })
	ctx := context.Background()
	labels := map[string]string{"app": "gc"}
	template := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
	}
	yes := true
	controllerRef := func(obj metav1.Object, apiVersion, kind string) metav1.OwnerReference {
		r := ref(obj, apiVersion, kind, true)
		r.Controller = &yes
		return r
	}
	build := func(name string) (*appsv1.Deployment, *appsv1.ReplicaSet) {
		d, err := e.cs.AppsV1().Deployments(e.ns).Create(ctx, &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec:       appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: template},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rs, err := e.cs.AppsV1().ReplicaSets(e.ns).Create(ctx, &appsv1.ReplicaSet{
			ObjectMeta: metav1.ObjectMeta{Name: name + "-rs", OwnerReferences: []metav1.OwnerReference{controllerRef(d, "apps/v1", "Deployment")}},
			Spec:       appsv1.ReplicaSetSpec{Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: template},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name + "-pod", Labels: labels, OwnerReferences: []metav1.OwnerReference{controllerRef(rs, "apps/v1", "ReplicaSet")}}, Spec: template.Spec}
		if _, err := e.cs.CoreV1().Pods(e.ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		return d, rs
	}
	rsGone := func(name string) {
		e.gone("replicaset "+name, func(ctx context.Context) error {
			_, err := e.cs.AppsV1().ReplicaSets(e.ns).Get(ctx, name, metav1.GetOptions{})
			return err
		})
	}
	podGone := func(name string) {
		e.gone("pod "+name, func(ctx context.Context) error {
			_, err := e.cs.CoreV1().Pods(e.ns).Get(ctx, name, metav1.GetOptions{})
			return err
		})
	}
	deploymentGone := func(name string) {
		e.gone("deployment "+name, func(ctx context.Context) error {
			_, err := e.cs.AppsV1().Deployments(e.ns).Get(ctx, name, metav1.GetOptions{})
			return err
		})
	}
	for _, p := range []metav1.DeletionPropagation{metav1.DeletePropagationBackground, metav1.DeletePropagationForeground} {
		t.Run(string(p), func(t *testing.T) {
			name := "web-" + strings.ToLower(string(p))
			build(name)
			if err := e.cs.AppsV1().Deployments(e.ns).Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: &p}); err != nil {
				t.Fatal(err)
			}
			deploymentGone(name)
			rsGone(name + "-rs")
			podGone(name + "-pod")
		})
	}
	// gcObservedReplicaSets returns once the collector has seen every
	// ReplicaSet created so far: a sentinel created after them, owned by
	// a Deployment that never existed, is deleted only after its
	// informer delivered the earlier ones. Without it an orphaning delete
	// can race the collector's view of the dependents (upstream's
	// collector has the same window) and the dependent is later
	// collected as dangling.
	gcObservedReplicaSets := func(name string) {
		ghost := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: name + "-ghost", UID: "00000000-0000-0000-0000-00000000dead"}
		if _, err := e.cs.AppsV1().ReplicaSets(e.ns).Create(ctx, &appsv1.ReplicaSet{
			ObjectMeta: metav1.ObjectMeta{Name: name + "-sentinel", OwnerReferences: []metav1.OwnerReference{ghost}},
			Spec:       appsv1.ReplicaSetSpec{Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: template},
		}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		rsGone(name + "-sentinel")
	}
	t.Run("Orphan", func(t *testing.T) {
		p := metav1.DeletePropagationOrphan
		build("web-orphan")
		gcObservedReplicaSets("web-orphan")
		if err := e.cs.AppsV1().Deployments(e.ns).Delete(ctx, "web-orphan", metav1.DeleteOptions{PropagationPolicy: &p}); err != nil {
			t.Fatal(err)
		}
		deploymentGone("web-orphan")
		poll(t, "replicaset orphaned", func(ctx context.Context) (bool, error) {
			rs, err := e.cs.AppsV1().ReplicaSets(e.ns).Get(ctx, "web-orphan-rs", metav1.GetOptions{})
			return err == nil && len(rs.OwnerReferences) == 0, err
		})
		if pod, err := e.cs.CoreV1().Pods(e.ns).Get(ctx, "web-orphan-pod", metav1.GetOptions{}); err != nil || len(pod.OwnerReferences) != 1 {
			t.Fatalf("the pod keeps its replicaset: %v (err %v)", pod, err)
		}
	})
}

// TestGarbageCollectionCustomResources: a custom resource (its CRD
// created by the test, so followed after discovery changes) as owner
// with each policy, and as a dependent, whose references are patched
// with a JSON merge patch (no strategic merge for custom resources).
func TestGarbageCollectionCustomResources(t *testing.T) {
	e := newGCEnv(t)
	ctx := context.Background()
	createWidgetCRD(t, e.dc)
	ws := e.dc.Resource(widgets).Namespace(e.ns)
	widget := func(name string, owners ...metav1.OwnerReference) metav1.Object {
		t.Helper()
		u := newWidget(name)
		u.SetOwnerReferences(owners)
		w, err := ws.Create(ctx, u, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	deleteWidget := func(name string, p metav1.DeletionPropagation) {
		t.Helper()
		if err := ws.Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: &p}); err != nil {
			t.Fatal(err)
		}
	}
	widgetGone := func(name string) {
		t.Helper()
		e.gone("widget "+name, func(ctx context.Context) error {
			_, err := ws.Get(ctx, name, metav1.GetOptions{})
			return err
		})
	}
	widgetRef := func(w metav1.Object, block bool) metav1.OwnerReference {
		return ref(w, "example.com/v1", "Widget", block)
	}
	for _, p := range []metav1.DeletionPropagation{metav1.DeletePropagationBackground, metav1.DeletePropagationForeground} {
		name := "owner-" + strings.ToLower(string(p))
		w := widget(name)
		e.configMap(e.ns, name+"-dep", widgetRef(w, true))
		deleteWidget(name, p)
		widgetGone(name)
		e.cmGone(e.ns, name+"-dep")
	}

	w := widget("owner-orphan")
	e.configMap(e.ns, "owner-orphan-dep", widgetRef(w, true))
	e.cmObservedByGC("owner-orphan-dep")
	deleteWidget("owner-orphan", metav1.DeletePropagationOrphan)
	widgetGone("owner-orphan")
	e.cmOwners("owner-orphan-dep")

	owner := e.configMap(e.ns, "cm-owner")
	other := e.configMap(e.ns, "cm-other")
	widget("dep-deleted", e.cmRef(owner, false))
	widget("dep-orphaned", e.cmRef(other, true))
	e.deleteCM("cm-owner", metav1.DeletePropagationBackground)
	widgetGone("dep-deleted")
	e.deleteCM("cm-other", metav1.DeletePropagationOrphan)
	e.cmGone(e.ns, "cm-other")
	poll(t, "widget orphaned", func(ctx context.Context) (bool, error) {
		w, err := ws.Get(ctx, "dep-orphaned", metav1.GetOptions{})
		return err == nil && len(w.GetOwnerReferences()) == 0, err
	})
}

// TestGarbageCollectionClusterScopedDependent: a cluster-scoped object
// naming a namespaced owner is left alone, with upstream's warning event
// (in "default", where events about cluster-scoped objects go).
func TestGarbageCollectionClusterScopedDependent(t *testing.T) {
	e := newGCEnv(t)
	ctx := context.Background()
	owner := e.configMap(e.ns, "ns-owner")
	cr, err := e.cs.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{
		Name: "gc-dependent", OwnerReferences: []metav1.OwnerReference{e.cmRef(owner, false)},
	}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	poll(t, "OwnerRefInvalidNamespace event", func(ctx context.Context) (bool, error) {
		list, err := e.cs.CoreV1().Events(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{
			FieldSelector: fields.OneTermEqualSelector("reason", "OwnerRefInvalidNamespace").String(),
		})
		if err != nil || len(list.Items) == 0 {
			return false, err
		}
		ev := list.Items[0]
		want := fmt.Sprintf(`ownerRef [v1/ConfigMap, namespace: , name: ns-owner, uid: %s] does not exist in namespace ""`, owner.UID)
		if ev.Message != want || ev.InvolvedObject.Kind != "ClusterRole" || ev.InvolvedObject.UID != cr.UID {
			return false, fmt.Errorf("event %q on %s %s, want %q on the ClusterRole", ev.Message, ev.InvolvedObject.Kind, ev.InvolvedObject.Name, want)
		}
		return true, nil
	})
	if _, err := e.cs.RbacV1().ClusterRoles().Get(ctx, "gc-dependent", metav1.GetOptions{}); err != nil {
		t.Fatalf("the cluster-scoped dependent must stay: %v", err)
	}
}

// TestGarbageCollectorStopsWithServer: once a server has stopped, no
// goroutine runs the collector's code (its informers, queues, workers and
// event broadcaster all end with the server's context).
func TestGarbageCollectorStopsWithServer(t *testing.T) {
	t.Run("server", func(t *testing.T) {
		e := newGCEnv(t)
		owner := e.configMap(e.ns, "owner")
		e.configMap(e.ns, "dep", e.cmRef(owner, false))
		e.deleteCM("owner", metav1.DeletePropagationBackground)
		e.cmGone(e.ns, "dep")
	})
	var last string
	poll(t, "garbage collector goroutines gone", func(context.Context) (bool, error) {
		buf := make([]byte, 4<<20)
		buf = buf[:runtime.Stack(buf, true)]
		last = ""
		for _, g := range strings.Split(string(buf), "\n\n") {
			if strings.Contains(g, "internal/controllers/garbagecollector.") {
				last = g
			}
		}
		return last == "", fmt.Errorf("still running:\n%s", last)
	})
}
