package pod

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

var ctx = registrytest.NamespaceContext("default")

func newStorage(t *testing.T, opts Options) (*runtime.Scheme, map[string]rest.Storage) {
	t.Helper()
	scheme := registrytest.NewScheme(t)
	storage, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme), opts)
	if err != nil {
		t.Fatalf("NewStorage: %v", err)
	}
	return scheme, storage
}

func podStore(s map[string]rest.Storage) *generic.Store { return s["pods"].(*generic.Store) }

// newPod creates a minimal valid pod through the storage, defaulted as a
// request would be.
func newPod(t *testing.T, scheme *runtime.Scheme, s map[string]rest.Storage, name string, labels map[string]string) *corev1.Pod {
	t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: labels},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx:1"}}},
	}
	scheme.Default(pod)
	out, err := podStore(s).Create(ctx, pod, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	return out.(*corev1.Pod)
}

func update(t *testing.T, s rest.Storage, pod *corev1.Pod) (*corev1.Pod, error) {
	t.Helper()
	out, _, err := s.(rest.Updater).Update(ctx, pod.Name, rest.DefaultUpdatedObjectInfo(pod), rest.ValidateAllObjectFunc, rest.ValidateAllObjectUpdateFunc, false, &metav1.UpdateOptions{})
	if err != nil {
		return nil, err
	}
	return out.(*corev1.Pod), nil
}

func TestGolden(t *testing.T) {
	scheme, s := newStorage(t, Options{})
	created := registrytest.Golden(t, scheme, podStore(s), "testdata", "pod").(*corev1.Pod)
	if created.Status.Phase != corev1.PodPending || created.Status.QOSClass != corev1.PodQOSGuaranteed || created.Generation != 1 {
		t.Errorf("status = %+v, generation %d; want Pending, Guaranteed, 1", created.Status, created.Generation)
	}
}

func TestStorageKeys(t *testing.T) {
	_, s := newStorage(t, Options{})
	for _, key := range []string{"pods", "pods/status", "pods/binding", "pods/eviction", "pods/ephemeralcontainers", "pods/resize",
		"pods/log", "pods/exec", "pods/attach", "pods/portforward", "pods/proxy", "bindings"} {
		if s[key] == nil {
			t.Errorf("no storage for %q", key)
		}
	}
	store := podStore(s)
	if got := store.ShortNames(); len(got) != 1 || got[0] != "po" {
		t.Errorf("short names = %v", got)
	}
	if got := store.Categories(); len(got) != 1 || got[0] != "all" {
		t.Errorf("categories = %v", got)
	}
}

func TestCreateInvalid(t *testing.T) {
	scheme, s := newStorage(t, Options{})
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}}
	scheme.Default(pod)
	_, err := podStore(s).Create(ctx, pod, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) {
		t.Fatalf("create without containers: %v, want 422", err)
	}
	causes := err.(apierrors.APIStatus).Status().Details.Causes
	if len(causes) != 1 || causes[0].Field != "spec.containers" || causes[0].Type != metav1.CauseTypeFieldValueRequired {
		t.Errorf("causes = %+v", causes)
	}
}

func TestUpdateKeepsStatusAndBumpsGeneration(t *testing.T) {
	scheme, s := newStorage(t, Options{})
	pod := newPod(t, scheme, s, "p", nil)

	// A main update may change the image (generation 2) but not status.
	pod.Spec.Containers[0].Image = "nginx:2"
	pod.Status.Phase = corev1.PodRunning
	got, err := update(t, s["pods"], pod)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.Phase != corev1.PodPending || got.Generation != 2 {
		t.Errorf("after spec update: phase %s generation %d, want Pending 2", got.Status.Phase, got.Generation)
	}

	// A status update takes status, keeps spec and generation.
	got.Status.Phase = corev1.PodRunning
	got.Spec.Containers[0].Image = "nginx:3"
	got, err = update(t, s["pods/status"], got)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.Phase != corev1.PodRunning || got.Spec.Containers[0].Image != "nginx:2" || got.Generation != 2 || got.Status.QOSClass != corev1.PodQOSBestEffort {
		t.Errorf("after status update: phase %s image %s generation %d qos %q", got.Status.Phase, got.Spec.Containers[0].Image, got.Generation, got.Status.QOSClass)
	}

	// A metadata-only update does not bump generation.
	got.Labels = map[string]string{"a": "b"}
	if got, err = update(t, s["pods"], got); err != nil || got.Generation != 2 {
		t.Errorf("label update: generation %d, %v", got.Generation, err)
	}

	// An immutable field is rejected.
	got.Spec.RestartPolicy = corev1.RestartPolicyNever
	if _, err := update(t, s["pods"], got); !apierrors.IsInvalid(err) {
		t.Errorf("restartPolicy update: %v, want 422", err)
	}
}

func TestEphemeralContainersAndResize(t *testing.T) {
	scheme, s := newStorage(t, Options{})
	pod := newPod(t, scheme, s, "p", nil)

	debug := corev1.EphemeralContainer{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debug", Image: "busybox"}}
	pod.Spec.EphemeralContainers = []corev1.EphemeralContainer{debug}
	scheme.Default(pod)
	pod.Spec.Containers[0].Image = "ignored:1"
	got, err := update(t, s["pods/ephemeralcontainers"], pod)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Spec.EphemeralContainers) != 1 || got.Spec.Containers[0].Image != "nginx:1" || got.Generation != 2 {
		t.Errorf("ephemeral update: %d ephemeral, image %s, generation %d", len(got.Spec.EphemeralContainers), got.Spec.Containers[0].Image, got.Generation)
	}
	added := got.Spec.EphemeralContainers
	got.Spec.EphemeralContainers = nil
	if _, err := update(t, s["pods/ephemeralcontainers"], got); !apierrors.IsInvalid(err) {
		t.Errorf("removing an ephemeral container: %v, want 422", err)
	}

	// Resizing a BestEffort pod would change its QoS class.
	got.Spec.EphemeralContainers = added
	got.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: *resourceQuantity("1")}
	if _, err := update(t, s["pods/resize"], got); !apierrors.IsInvalid(err) {
		t.Errorf("resize changing QoS: %v, want 422", err)
	}
}

func TestBinding(t *testing.T) {
	scheme, s := newStorage(t, Options{})
	newPod(t, scheme, s, "p", nil)
	newPod(t, scheme, s, "q", nil)
	bind := s["pods/binding"].(rest.NamedCreater)
	binding := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default", Labels: map[string]string{corev1.LabelTopologyZone: "z1"}},
		Target: corev1.ObjectReference{Kind: "Node", Name: "n1"}}
	if _, err := bind.Create(ctx, "p", binding, rest.ValidateAllObjectFunc, &metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	obj, _ := podStore(s).Get(ctx, "p", &metav1.GetOptions{})
	pod := obj.(*corev1.Pod)
	if pod.Spec.NodeName != "n1" || len(pod.Status.Conditions) != 1 || pod.Status.Conditions[0].Type != corev1.PodScheduled {
		t.Errorf("bound pod: node %q conditions %+v", pod.Spec.NodeName, pod.Status.Conditions)
	}
	if pod.Labels[corev1.LabelTopologyZone] != "z1" {
		t.Errorf("binding labels not copied: %v", pod.Labels)
	}
	_, err := bind.Create(ctx, "p", binding, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	if !apierrors.IsConflict(err) || err.Error() != `Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "n1"` {
		t.Errorf("second binding: %v", err)
	}
	if _, err := bind.Create(ctx, "other", binding, rest.ValidateAllObjectFunc, &metav1.CreateOptions{}); !apierrors.IsBadRequest(err) {
		t.Errorf("name mismatch: %v, want 400", err)
	}
	bad := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "q", Namespace: "default"}}
	if _, err := bind.Create(ctx, "q", bad, rest.ValidateAllObjectFunc, &metav1.CreateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("binding without target: %v, want 422", err)
	}
	legacy := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "q", Namespace: "default"}, Target: corev1.ObjectReference{Name: "n2"}}
	if _, err := s["bindings"].(rest.Creater).Create(ctx, legacy, rest.ValidateAllObjectFunc, &metav1.CreateOptions{}); err != nil {
		t.Fatalf("legacy binding: %v", err)
	}
	list, err := podStore(s).List(ctx, &metainternalversion.ListOptions{FieldSelector: fields.OneTermEqualSelector("spec.nodeName", "n2")})
	if err != nil {
		t.Fatal(err)
	}
	if items := list.(*corev1.PodList).Items; len(items) != 1 || items[0].Name != "q" {
		t.Errorf("spec.nodeName=n2 selected %d pods", len(items))
	}
}

func TestKubeletSubresources(t *testing.T) {
	scheme, s := newStorage(t, Options{})
	newPod(t, scheme, s, "p", nil)
	const noKubelet = `pods "p": no kubelet is running for this control plane (kapi stores pods but does not run them)`
	_, err := s["pods/log"].(rest.Getter).Get(ctx, "p", &metav1.GetOptions{})
	if !apierrors.IsServiceUnavailable(err) || err.Error() != noKubelet {
		t.Errorf("GET pods/log: %v", err)
	}
	if _, err := s["pods/log"].(rest.Getter).Get(ctx, "missing", &metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("GET pods/log of a missing pod: %v, want 404", err)
	}
	tests := []struct {
		key     string
		methods []string
	}{
		{"pods/exec", []string{"GET", "POST"}},
		{"pods/attach", []string{"GET", "POST"}},
		{"pods/portforward", []string{"GET", "POST"}},
		{"pods/proxy", []string{"GET", "POST", "PUT", "PATCH", "DELETE"}},
	}
	for _, tt := range tests {
		c := s[tt.key].(rest.Connecter)
		if got := c.ConnectMethods(); !slices.Equal(got, tt.methods) {
			t.Errorf("%s methods = %v, want %v", tt.key, got, tt.methods)
		}
		if _, err := c.Connect(ctx, "p", nil); !apierrors.IsServiceUnavailable(err) || err.Error() != noKubelet {
			t.Errorf("%s: %v", tt.key, err)
		}
		if _, err := c.Connect(ctx, "missing", nil); !apierrors.IsNotFound(err) {
			t.Errorf("%s of a missing pod: %v, want 404", tt.key, err)
		}
	}
}

func TestGracefulDelete(t *testing.T) {
	scheme, s := newStorage(t, Options{})
	store := podStore(s)
	newPod(t, scheme, s, "unscheduled", nil)
	if _, deleted, err := store.Delete(ctx, "unscheduled", rest.ValidateAllObjectFunc, &metav1.DeleteOptions{}); err != nil || !deleted {
		t.Errorf("unscheduled pod: deleted=%v %v, want deleted at once", deleted, err)
	}
	newPod(t, scheme, s, "bound", nil)
	binding := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "bound", Namespace: "default"}, Target: corev1.ObjectReference{Name: "n"}}
	if _, err := s["pods/binding"].(rest.NamedCreater).Create(ctx, "bound", binding, nil, &metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	obj, deleted, err := store.Delete(ctx, "bound", rest.ValidateAllObjectFunc, &metav1.DeleteOptions{})
	if err != nil || deleted {
		t.Fatalf("bound pod: deleted=%v %v, want a graceful mark", deleted, err)
	}
	if p := obj.(*corev1.Pod); p.DeletionTimestamp == nil || *p.DeletionGracePeriodSeconds != 30 {
		t.Errorf("bound pod deletion: %v %v", p.DeletionTimestamp, p.DeletionGracePeriodSeconds)
	}
}

func TestGetAttrs(t *testing.T) {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"},
		Spec:       corev1.PodSpec{NodeName: "n", RestartPolicy: corev1.RestartPolicyAlways, SchedulerName: "s", ServiceAccountName: "sa", HostNetwork: true},
		Status:     corev1.PodStatus{Phase: corev1.PodRunning, PodIPs: []corev1.PodIP{{IP: "10.0.0.1"}}, NominatedNodeName: "m"},
	}
	_, fs, err := GetAttrs(pod)
	if err != nil {
		t.Fatal(err)
	}
	want := fields.Set{
		"metadata.name": "p", "metadata.namespace": "ns", "spec.nodeName": "n", "spec.restartPolicy": "Always",
		"spec.schedulerName": "s", "spec.serviceAccountName": "sa", "spec.hostNetwork": "true",
		"status.phase": "Running", "status.podIP": "10.0.0.1", "status.nominatedNodeName": "m",
	}
	if fs.String() != want.String() {
		t.Errorf("fields = %v, want %v", fs, want)
	}
}

func resourceQuantity(s string) *resource.Quantity {
	q := resource.MustParse(s)
	return &q
}

// TestSelectableFieldsAreAccepted keeps GetAttrs and the scheme's Pod
// field-label conversion in step.
func TestSelectableFieldsAreAccepted(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	_, fs, err := GetAttrs(&corev1.Pod{})
	if err != nil {
		t.Fatal(err)
	}
	for label := range fs {
		if _, _, err := scheme.ConvertFieldLabel(corev1.SchemeGroupVersion.WithKind("Pod"), label, "x"); err != nil {
			t.Errorf("GetAttrs offers %q but field selectors reject it: %v", label, err)
		}
	}
	if _, _, err := scheme.ConvertFieldLabel(corev1.SchemeGroupVersion.WithKind("Pod"), "spec.containers", "x"); err == nil {
		t.Error("spec.containers accepted as a field selector")
	}
}
