package priority

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	schedulingv1listers "k8s.io/client-go/listers/scheduling/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/admission"
)

var (
	pods    = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	classes = schema.GroupVersionResource{Group: "scheduling.k8s.io", Version: "v1", Resource: "priorityclasses"}
	never   = corev1.PreemptNever
	lower   = corev1.PreemptLowerPriority
)

func class(name string, value int32, def bool, policy *corev1.PreemptionPolicy) *schedulingv1.PriorityClass {
	return &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value, GlobalDefault: def, PreemptionPolicy: policy}
}

func newPlugin(t *testing.T, pcs ...*schedulingv1.PriorityClass) *Plugin {
	t.Helper()
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, pc := range pcs {
		if err := idx.Add(pc); err != nil {
			t.Fatal(err)
		}
	}
	return New(schedulingv1listers.NewPriorityClassLister(idx), nil)
}

var (
	systemCluster = class("system-cluster-critical", 2000000000, false, &lower)
	systemNode    = class("system-node-critical", 2000001000, false, &lower)
	high          = class("high", 1000, false, &never)
	defaultClass  = class("default", 10, true, &lower)
)

func TestAdmitPod(t *testing.T) {
	tests := []struct {
		name       string
		classes    []*schedulingv1.PriorityClass
		pod        corev1.PodSpec
		wantClass  string
		wantPrio   int32
		wantPolicy corev1.PreemptionPolicy
		err        string
	}{
		{name: "no default class", classes: []*schedulingv1.PriorityClass{high},
			wantClass: "", wantPrio: 0, wantPolicy: lower},
		{name: "global default", classes: []*schedulingv1.PriorityClass{high, defaultClass},
			wantClass: "default", wantPrio: 10, wantPolicy: lower},
		{name: "two defaults: the lower wins", classes: []*schedulingv1.PriorityClass{class("d2", 5, true, &never), defaultClass},
			wantClass: "d2", wantPrio: 5, wantPolicy: never},
		{name: "named class with its preemption policy", classes: []*schedulingv1.PriorityClass{high, defaultClass},
			pod: corev1.PodSpec{PriorityClassName: "high"}, wantClass: "high", wantPrio: 1000, wantPolicy: never},
		{name: "system-node-critical", classes: []*schedulingv1.PriorityClass{systemNode, systemCluster},
			pod: corev1.PodSpec{PriorityClassName: "system-node-critical"}, wantClass: "system-node-critical", wantPrio: 2000001000, wantPolicy: lower},
		{name: "system-cluster-critical", classes: []*schedulingv1.PriorityClass{systemNode, systemCluster},
			pod: corev1.PodSpec{PriorityClassName: "system-cluster-critical"}, wantClass: "system-cluster-critical", wantPrio: 2000000000, wantPolicy: lower},
		{name: "unknown class", classes: []*schedulingv1.PriorityClass{high},
			pod: corev1.PodSpec{PriorityClassName: "nope"},
			err: `pods "p" is forbidden: no PriorityClass with name nope was found`},
		{name: "matching priority given", classes: []*schedulingv1.PriorityClass{high},
			pod: corev1.PodSpec{PriorityClassName: "high", Priority: ptr.To[int32](1000)}, wantClass: "high", wantPrio: 1000, wantPolicy: never},
		{name: "other priority given", classes: []*schedulingv1.PriorityClass{high},
			pod: corev1.PodSpec{PriorityClassName: "high", Priority: ptr.To[int32](5)},
			err: `pods "p" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name`},
		{name: "other preemption policy given", classes: []*schedulingv1.PriorityClass{high},
			pod: corev1.PodSpec{PriorityClassName: "high", PreemptionPolicy: &lower},
			err: `pods "p" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never from the given PriorityClass name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}, Spec: tt.pod}
			err := newPlugin(t, tt.classes...).Admit(context.Background(), &admission.Attributes{
				Name: "p", Namespace: "ns", Resource: pods, Operation: admission.Create, Object: pod,
			})
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error:\n got %v\nwant %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if pod.Spec.PriorityClassName != tt.wantClass || pod.Spec.Priority == nil || *pod.Spec.Priority != tt.wantPrio ||
				pod.Spec.PreemptionPolicy == nil || *pod.Spec.PreemptionPolicy != tt.wantPolicy {
				t.Errorf("got class %q priority %v policy %v, want %q %d %s", pod.Spec.PriorityClassName,
					ptr.Deref(pod.Spec.Priority, -1), ptr.Deref(pod.Spec.PreemptionPolicy, "<nil>"), tt.wantClass, tt.wantPrio, tt.wantPolicy)
			}
		})
	}
}

// TestUpdateKeepsPriority: an update that leaves priority out keeps the
// one set at creation.
func TestUpdateKeepsPriority(t *testing.T) {
	old := &corev1.Pod{Spec: corev1.PodSpec{Priority: ptr.To[int32](7), PreemptionPolicy: &never}}
	pod := &corev1.Pod{}
	err := newPlugin(t).Admit(context.Background(), &admission.Attributes{Resource: pods, Operation: admission.Update, Object: pod, OldObject: old})
	if err != nil {
		t.Fatal(err)
	}
	if ptr.Deref(pod.Spec.Priority, 0) != 7 || ptr.Deref(pod.Spec.PreemptionPolicy, "") != never {
		t.Errorf("got %v %v", pod.Spec.Priority, pod.Spec.PreemptionPolicy)
	}
}

func TestValidatePriorityClass(t *testing.T) {
	tests := []struct {
		name  string
		op    admission.Operation
		class *schedulingv1.PriorityClass
		err   string
	}{
		{"second default", admission.Create, class("other", 1, true, nil),
			`priorityclasses.scheduling.k8s.io "other" is forbidden: PriorityClass default is already marked as default. Only one default can exist`},
		{"another made default", admission.Update, class("high", 1000, true, nil),
			`priorityclasses.scheduling.k8s.io "high" is forbidden: PriorityClass default is already marked as default. Only one default can exist`},
		{"the default updated", admission.Update, class("default", 11, true, nil), ""},
		{"non-default", admission.Create, class("low", 1, false, nil), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := newPlugin(t, high, defaultClass).Validate(context.Background(), &admission.Attributes{
				Name: tt.class.Name, Resource: classes, Operation: tt.op, Object: tt.class,
			})
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || err.Error() != tt.err {
				t.Fatalf("error:\n got %v\nwant %s", err, tt.err)
			}
		})
	}
}
