package quota

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
)

func rl(kv ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

func TestUsage(t *testing.T) {
	now := time.Now()
	clk := clocktesting.NewFakePassiveClock(now)
	podWith := func(mod func(*corev1.Pod)) *corev1.Pod {
		p := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{
			Requests: rl("cpu", "100m", "memory", "1Gi", "hugepages-2Mi", "4Mi", "example.com/gpu", "2", "ephemeral-storage", "1Gi"),
			Limits:   rl("cpu", "200m", "memory", "2Gi"),
		}}}}}
		if mod != nil {
			mod(p)
		}
		return p
	}
	tests := []struct {
		name string
		e    Evaluator
		obj  runtime.Object
		want corev1.ResourceList
	}{
		{"pod", NewPodEvaluator(clk), podWith(nil), rl(
			"count/pods", "1", "pods", "1",
			"cpu", "100m", "requests.cpu", "100m", "limits.cpu", "200m",
			"memory", "1Gi", "requests.memory", "1Gi", "limits.memory", "2Gi",
			"ephemeral-storage", "1Gi", "requests.ephemeral-storage", "1Gi",
			"hugepages-2Mi", "4Mi", "requests.hugepages-2Mi", "4Mi",
			"requests.example.com/gpu", "2")},
		{"finished pod counts only as an object", NewPodEvaluator(clk), podWith(func(p *corev1.Pod) { p.Status.Phase = corev1.PodFailed }), rl("count/pods", "1")},
		{"deleted pod past its grace period", NewPodEvaluator(clk), podWith(func(p *corev1.Pod) {
			p.DeletionTimestamp = &metav1.Time{Time: now.Add(-time.Minute)}
			p.DeletionGracePeriodSeconds = ptr.To[int64](30)
		}), rl("count/pods", "1")},
		{"init containers take the max", NewPodEvaluator(clk), &corev1.Pod{Spec: corev1.PodSpec{
			InitContainers: []corev1.Container{{Name: "i", Resources: corev1.ResourceRequirements{Requests: rl("cpu", "2")}}},
			Containers:     []corev1.Container{{Name: "a", Resources: corev1.ResourceRequirements{Requests: rl("cpu", "1")}}, {Name: "b", Resources: corev1.ResourceRequirements{Requests: rl("cpu", "500m")}}},
		}}, rl("count/pods", "1", "pods", "1", "cpu", "2", "requests.cpu", "2")},
		{"cluster IP service", NewServiceEvaluator(), &corev1.Service{Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 1}}}},
			rl("count/services", "1", "services", "1", "services.nodeports", "0", "services.loadbalancers", "0")},
		{"node port service", NewServiceEvaluator(), &corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Ports: []corev1.ServicePort{{Port: 1}, {Port: 2}}}},
			rl("count/services", "1", "services", "1", "services.nodeports", "2", "services.loadbalancers", "0")},
		{"claim rounds storage up and charges its class", NewPersistentVolumeClaimEvaluator(), &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{corev1.BetaStorageClassAnnotation: "fast"}},
			Spec:       corev1.PersistentVolumeClaimSpec{Resources: corev1.VolumeResourceRequirements{Requests: rl("storage", "1500m")}},
		}, rl("persistentvolumeclaims", "1", "count/persistentvolumeclaims", "1", "requests.storage", "2",
			"fast.storageclass.storage.k8s.io/persistentvolumeclaims", "1", "fast.storageclass.storage.k8s.io/requests.storage", "2")},
		{"claim charged its larger allocation", NewPersistentVolumeClaimEvaluator(), &corev1.PersistentVolumeClaim{
			Spec:   corev1.PersistentVolumeClaimSpec{Resources: corev1.VolumeResourceRequirements{Requests: rl("storage", "1Gi")}},
			Status: corev1.PersistentVolumeClaimStatus{AllocatedResources: rl("storage", "2Gi")},
		}, rl("persistentvolumeclaims", "1", "count/persistentvolumeclaims", "1", "requests.storage", "2Gi")},
		{"secrets by legacy and count names", NewRegistry(clk).Get(schema.GroupResource{Resource: "secrets"}), &corev1.Secret{}, rl("secrets", "1", "count/secrets", "1")},
		{"any resource by count", NewRegistry(clk).Get(schema.GroupResource{Group: "apps", Resource: "deployments"}), &corev1.Secret{}, rl("count/deployments.apps", "1")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.e.Usage(tt.obj)
			if err != nil {
				t.Fatal(err)
			}
			if !Equals(got, tt.want) {
				t.Errorf("usage:\n got %v\nwant %v", PrettyPrint(got), PrettyPrint(tt.want))
			}
		})
	}
}

func TestMatchingResources(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(time.Now())
	all := []corev1.ResourceName{"pods", "count/pods", "requests.cpu", "hugepages-1Gi", "requests.nvidia.com/gpu", "requests.cpu.kubernetes.io/x",
		"services", "services.nodeports", "configmaps", "count/configmaps", "requests.storage", "gold.storageclass.storage.k8s.io/requests.storage", "count/widgets.example.com"}
	tests := []struct {
		name string
		e    Evaluator
		want string
	}{
		{"pods", NewPodEvaluator(clk), "count/pods,hugepages-1Gi,pods,requests.cpu,requests.nvidia.com/gpu"},
		{"services", NewServiceEvaluator(), "services,services.nodeports"},
		{"claims", NewPersistentVolumeClaimEvaluator(), "gold.storageclass.storage.k8s.io/requests.storage,requests.storage"},
		{"configmaps", NewRegistry(clk).Get(schema.GroupResource{Resource: "configmaps"}), "configmaps,count/configmaps"},
		{"widgets", NewRegistry(clk).Get(schema.GroupResource{Group: "example.com", Resource: "widgets"}), "count/widgets.example.com"},
	}
	for _, tt := range tests {
		if got := PrettyPrintNames(tt.e.MatchingResources(all)); got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.name, got, tt.want)
		}
	}
}

func TestArithmetic(t *testing.T) {
	if got := PrettyPrint(Add(rl("a", "1", "b", "2"), rl("b", "3", "c", "1"))); got != "a=1,b=5,c=1" {
		t.Errorf("Add = %s", got)
	}
	if got := PrettyPrint(SubtractWithNonNegativeResult(rl("a", "1", "b", "5"), rl("a", "3", "b", "2", "c", "1"))); got != "a=0,b=3,c=0" {
		t.Errorf("SubtractWithNonNegativeResult = %s", got)
	}
	if ok, exceeded := LessThanOrEqual(rl("a", "2", "b", "1", "z", "9"), rl("a", "1", "b", "1")); ok || PrettyPrintNames(exceeded) != "a" {
		t.Errorf("LessThanOrEqual = %v %v", ok, exceeded)
	}
	if !Equals(rl("a", "1000m"), rl("a", "1")) || Equals(rl("a", "1"), rl("a", "1", "b", "0")) {
		t.Error("Equals compares values, and names")
	}
	if gr, ok := ParseCountResourceName("count/widgets.example.com"); !ok || gr != (schema.GroupResource{Group: "example.com", Resource: "widgets"}) {
		t.Errorf("ParseCountResourceName = %v %v", gr, ok)
	}
}

func TestScopes(t *testing.T) {
	e := NewPodEvaluator(clocktesting.NewFakePassiveClock(time.Now()))
	pvcs := NewPersistentVolumeClaimEvaluator()
	in := func(scope corev1.ResourceQuotaScope, op corev1.ScopeSelectorOperator, values ...string) corev1.ScopedResourceSelectorRequirement {
		return corev1.ScopedResourceSelectorRequirement{ScopeName: scope, Operator: op, Values: values}
	}
	plain := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}}
	high := plain.DeepCopy()
	high.Spec.PriorityClassName = "high"
	gold := &corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{VolumeAttributesClassName: ptr.To("gold")}}
	tests := []struct {
		name string
		e    Evaluator
		sel  corev1.ScopedResourceSelectorRequirement
		obj  runtime.Object
		want bool
	}{
		{"best effort", e, in(corev1.ResourceQuotaScopeBestEffort, corev1.ScopeSelectorOpExists), plain, true},
		{"priority exists", e, in(corev1.ResourceQuotaScopePriorityClass, corev1.ScopeSelectorOpExists), high, true},
		{"priority exists, none", e, in(corev1.ResourceQuotaScopePriorityClass, corev1.ScopeSelectorOpExists), plain, false},
		{"priority in", e, in(corev1.ResourceQuotaScopePriorityClass, corev1.ScopeSelectorOpIn, "low", "high"), high, true},
		{"priority not in", e, in(corev1.ResourceQuotaScopePriorityClass, corev1.ScopeSelectorOpNotIn, "high"), high, false},
		{"priority not in, none", e, in(corev1.ResourceQuotaScopePriorityClass, corev1.ScopeSelectorOpNotIn, "high"), plain, true},
		{"priority does not exist", e, in(corev1.ResourceQuotaScopePriorityClass, corev1.ScopeSelectorOpDoesNotExist), plain, true},
		{"volume attributes class in", pvcs, in(corev1.ResourceQuotaScopeVolumeAttributesClass, corev1.ScopeSelectorOpIn, "gold"), gold, true},
		{"volume attributes class exists", pvcs, in(corev1.ResourceQuotaScopeVolumeAttributesClass, corev1.ScopeSelectorOpExists), &corev1.PersistentVolumeClaim{}, false},
		{"pods have no volume attributes class", e, in(corev1.ResourceQuotaScopeVolumeAttributesClass, corev1.ScopeSelectorOpExists), plain, false},
	}
	for _, tt := range tests {
		got, err := tt.e.MatchesScope(tt.sel, tt.obj)
		if err != nil || got != tt.want {
			t.Errorf("%s: got %v (%v), want %v", tt.name, got, err, tt.want)
		}
	}
}
