package handlers

import (
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/applyconfigurations"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/kapi-dev/kapi/internal/registry/registrytest"
)

// TestCrossGroupConvertor: only a typed object already of the target's
// kind, with the kind set, comes back as it is; every other object is
// converted (a copy, with the target's kind).
func TestCrossGroupConvertor(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	c := crossGroupConvertor{ObjectConvertor: scheme, creater: scheme, typer: scheme}
	cmKind := corev1.SchemeGroupVersion.WithKind("ConfigMap")
	withKind := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: metav1.ObjectMeta{Name: "a"}}
	tests := []struct {
		name     string
		in       runtime.Object
		target   schema.GroupVersion
		same     bool
		wantKind schema.GroupVersionKind
	}{
		{name: "typed, kind set", in: withKind, target: corev1.SchemeGroupVersion, same: true, wantKind: cmKind},
		{name: "typed, no kind", in: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, target: corev1.SchemeGroupVersion, wantKind: cmKind},
		{name: "typed, kind of another version set", in: &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v2", Kind: "ConfigMap"}}, target: corev1.SchemeGroupVersion, wantKind: cmKind},
		{name: "typed, another group's kind", in: &corev1.Event{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Event"}}, target: eventsv1.SchemeGroupVersion, wantKind: eventsv1.SchemeGroupVersion.WithKind("Event")},
		{name: "unstructured of the target", in: &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "a"}}}, target: corev1.SchemeGroupVersion, wantKind: cmKind},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := c.ConvertToVersion(tt.in, tt.target)
			if err != nil {
				t.Fatal(err)
			}
			if same := out == tt.in; same != tt.same {
				t.Errorf("returned the input itself: %v, want %v", same, tt.same)
			}
			if got := out.GetObjectKind().GroupVersionKind(); got != tt.wantKind {
				t.Errorf("kind = %v, want %v", got, tt.wantKind)
			}
		})
	}
}

// TestFieldManagerLeavesItsInputsAlone: the live object (the watch
// cache's, shared) and the new one come out of Update and Apply as they
// went in, and may be read meanwhile: the convertor hands the field
// manager objects it already has the kind of without copying them.
func TestFieldManagerLeavesItsInputsAlone(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	tc := applyconfigurations.NewTypeConverter(clientgoscheme.Scheme)
	fm, err := NewFieldManager(tc, scheme, corev1.SchemeGroupVersion.WithKind("ConfigMap"), corev1.SchemeGroupVersion, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	live := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", UID: "u", ResourceVersion: "5", Labels: map[string]string{"l": "1"}},
		Data:       map[string]string{"k": "v"},
	}
	live = fm.UpdateNoErrors(&corev1.ConfigMap{}, live, "creator").(*corev1.ConfigMap)
	before := live.DeepCopy()

	var readers sync.WaitGroup
	stop := make(chan struct{})
	for range 2 {
		readers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
					_ = apiequality.Semantic.DeepEqual(live, before)
				}
			}
		})
	}
	obj := live.DeepCopy()
	obj.Data["k2"] = "v2"
	objBefore := obj.DeepCopy()
	if _, err := fm.Update(live, obj, "updater"); err != nil {
		t.Fatal(err)
	}
	patch := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns"}, Data: map[string]string{"k3": "v3"}}
	patchBefore := patch.DeepCopy()
	if _, err := fm.Apply(live, patch, "applier", false); err != nil {
		t.Fatal(err)
	}
	close(stop)
	readers.Wait()
	if !apiequality.Semantic.DeepEqual(live, before) {
		t.Errorf("live object changed:\n%+v\nwas\n%+v", live, before)
	}
	if !apiequality.Semantic.DeepEqual(patch, patchBefore) {
		t.Errorf("applied object changed:\n%+v\nwas\n%+v", patch, patchBefore)
	}
	// Update hands back the new object with its managed fields: only those
	// may differ.
	obj.ManagedFields = objBefore.ManagedFields
	if !apiequality.Semantic.DeepEqual(obj, objBefore) {
		t.Errorf("new object changed beyond its managed fields:\n%+v\nwas\n%+v", obj, objBefore)
	}
}
