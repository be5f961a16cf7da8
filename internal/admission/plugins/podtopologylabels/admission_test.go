package podtopologylabels

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kapi-dev/kapi/internal/admission"
)

func TestAdmit(t *testing.T) {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	_ = idx.Add(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{
		corev1.LabelTopologyZone: "z1", corev1.LabelTopologyRegion: "r1", corev1.LabelHostname: "n1", "other": "x"}}})
	p := New(corev1listers.NewNodeLister(idx), nil)
	pods := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	topology := map[string]string{corev1.LabelTopologyZone: "z1", corev1.LabelTopologyRegion: "r1"}
	tests := []struct {
		name string
		sub  string
		obj  runtime.Object
		get  func(runtime.Object) map[string]string
		want map[string]string
	}{
		{"binding to a node", "binding", &corev1.Binding{Target: corev1.ObjectReference{Kind: "Node", Name: "n1"}},
			func(o runtime.Object) map[string]string { return o.(*corev1.Binding).Labels }, topology},
		{"binding to an unknown node", "binding", &corev1.Binding{Target: corev1.ObjectReference{Kind: "Node", Name: "nope"}},
			func(o runtime.Object) map[string]string { return o.(*corev1.Binding).Labels }, nil},
		{"pod created on a node overwrites", "", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{corev1.LabelTopologyZone: "mine", "app": "a"}}, Spec: corev1.PodSpec{NodeName: "n1"}},
			func(o runtime.Object) map[string]string { return o.(*corev1.Pod).Labels },
			map[string]string{corev1.LabelTopologyZone: "z1", corev1.LabelTopologyRegion: "r1", "app": "a"}},
		{"unscheduled pod", "", &corev1.Pod{},
			func(o runtime.Object) map[string]string { return o.(*corev1.Pod).Labels }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := p.Admit(context.Background(), &admission.Attributes{Name: "p", Namespace: "ns", Resource: pods, Subresource: tt.sub, Operation: admission.Create, Object: tt.obj}); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, tt.get(tt.obj)); d != "" {
				t.Errorf("labels (-want +got):\n%s", d)
			}
		})
	}
}
