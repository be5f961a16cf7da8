package runtimeclass

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	nodev1listers "k8s.io/client-go/listers/node/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/admission"
)

var pods = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

func plugin(t *testing.T, cached []*nodev1.RuntimeClass, live ...*nodev1.RuntimeClass) *Plugin {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, rc := range cached {
		if err := idx.Add(rc); err != nil {
			t.Fatal(err)
		}
	}
	return New(nodev1listers.NewRuntimeClassLister(idx), func(_ context.Context, name string) (*nodev1.RuntimeClass, error) {
		for _, rc := range live {
			if rc.Name == name {
				return rc, nil
			}
		}
		return nil, apierrors.NewNotFound(schema.GroupResource{Group: "node.k8s.io", Resource: "runtimeclasses"}, name)
	})
}

func TestAdmit(t *testing.T) {
	overhead := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}
	kata := &nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "kata"}, Handler: "kata",
		Overhead: &nodev1.Overhead{PodFixed: overhead},
		Scheduling: &nodev1.Scheduling{NodeSelector: map[string]string{"sandbox": "kata"},
			Tolerations: []corev1.Toleration{{Key: "sandbox", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}}}
	plain := &nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "plain"}, Handler: "runc"}
	tests := []struct {
		name string
		pod  corev1.PodSpec
		live bool
		want corev1.PodSpec
		err  string
	}{
		{name: "no class", pod: corev1.PodSpec{}, want: corev1.PodSpec{}},
		{name: "overhead and scheduling", pod: corev1.PodSpec{RuntimeClassName: ptr.To("kata"), NodeSelector: map[string]string{"disk": "ssd"}},
			want: corev1.PodSpec{RuntimeClassName: ptr.To("kata"), Overhead: overhead, NodeSelector: map[string]string{"disk": "ssd", "sandbox": "kata"},
				Tolerations: []corev1.Toleration{{Key: "sandbox", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}}},
		{name: "class only in storage", live: true, pod: corev1.PodSpec{RuntimeClassName: ptr.To("kata")},
			want: corev1.PodSpec{RuntimeClassName: ptr.To("kata"), Overhead: overhead, NodeSelector: map[string]string{"sandbox": "kata"},
				Tolerations: []corev1.Toleration{{Key: "sandbox", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}}},
		{name: "missing class", pod: corev1.PodSpec{RuntimeClassName: ptr.To("nope")},
			err: `pods "p" is forbidden: pod rejected: RuntimeClass "nope" not found`},
		{name: "selector conflict", pod: corev1.PodSpec{RuntimeClassName: ptr.To("kata"), NodeSelector: map[string]string{"sandbox": "gvisor"}},
			err: `pods "p" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[sandbox] = kata; pod.spec.nodeSelector[sandbox] = gvisor`},
		{name: "other overhead", pod: corev1.PodSpec{RuntimeClassName: ptr.To("kata"), Overhead: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}},
			err: `pods "p" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead`},
		{name: "overhead without the class defining one", pod: corev1.PodSpec{RuntimeClassName: ptr.To("plain"), Overhead: overhead},
			err: `pods "p" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cached := []*nodev1.RuntimeClass{kata, plain}
			if tt.live {
				cached = nil
			}
			p := plugin(t, cached, kata, plain)
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: tt.pod}
			a := &admission.Attributes{Name: "p", Namespace: "ns", Resource: pods, Operation: admission.Create, Object: pod}
			err := p.Admit(context.Background(), a)
			if err == nil {
				err = p.Validate(context.Background(), a)
			}
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error:\n got %v\nwant %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, pod.Spec); d != "" {
				t.Errorf("spec (-want +got):\n%s", d)
			}
		})
	}
}

func TestMergeTolerations(t *testing.T) {
	all := corev1.Toleration{Operator: corev1.TolerationOpExists}
	a := corev1.Toleration{Key: "a", Operator: corev1.TolerationOpEqual, Value: "1", Effect: corev1.TaintEffectNoSchedule}
	aAny := corev1.Toleration{Key: "a", Operator: corev1.TolerationOpExists}
	b := corev1.Toleration{Key: "b", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](10)}
	for _, tc := range []struct {
		first, second, want []corev1.Toleration
	}{
		{[]corev1.Toleration{a}, []corev1.Toleration{a}, []corev1.Toleration{a}},
		{[]corev1.Toleration{a}, []corev1.Toleration{aAny}, []corev1.Toleration{aAny}},
		{[]corev1.Toleration{a, b}, []corev1.Toleration{all}, []corev1.Toleration{all}},
		{[]corev1.Toleration{a}, []corev1.Toleration{b}, []corev1.Toleration{a, b}},
	} {
		if d := cmp.Diff(tc.want, MergeTolerations(tc.first, tc.second)); d != "" {
			t.Errorf("merge %v %v (-want +got):\n%s", tc.first, tc.second, d)
		}
	}
}
