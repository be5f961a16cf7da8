package validation

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestValidateLimitRange(t *testing.T) {
	q := resource.MustParse
	lr := func(items ...corev1.LimitRangeItem) *corev1.LimitRange {
		return &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "l", Namespace: "ns"}, Spec: corev1.LimitRangeSpec{Limits: items}}
	}
	tests := []struct {
		name string
		lr   *corev1.LimitRange
		want []string
	}{
		{"valid", lr(corev1.LimitRangeItem{Type: "Container", Min: corev1.ResourceList{"cpu": q("100m")}, DefaultRequest: corev1.ResourceList{"cpu": q("200m")},
			Default: corev1.ResourceList{"cpu": q("500m")}, Max: corev1.ResourceList{"cpu": q("1")}, MaxLimitRequestRatio: corev1.ResourceList{"cpu": q("5")}}), nil},
		{"min above max", lr(corev1.LimitRangeItem{Type: "Container", Min: corev1.ResourceList{"cpu": q("2")}, Max: corev1.ResourceList{"cpu": q("1")}}),
			[]string{"spec.limits[0].min[cpu]: Invalid value: min value 2 is greater than max value 1"}},
		{"default above max", lr(corev1.LimitRangeItem{Type: "Container", Default: corev1.ResourceList{"memory": q("2Gi")}, Max: corev1.ResourceList{"memory": q("1Gi")}}),
			[]string{"spec.limits[0].default[memory]: Invalid value: default value 2Gi is greater than max value 1Gi"}},
		{"default request above default", lr(corev1.LimitRangeItem{Type: "Container", Default: corev1.ResourceList{"cpu": q("1")}, DefaultRequest: corev1.ResourceList{"cpu": q("2")}}),
			[]string{"spec.limits[0].defaultRequest[cpu]: Invalid value: default request value 2 is greater than default limit value 1"}},
		{"min above default request", lr(corev1.LimitRangeItem{Type: "Container", Min: corev1.ResourceList{"cpu": q("2")}, DefaultRequest: corev1.ResourceList{"cpu": q("1")}}),
			[]string{"spec.limits[0].defaultRequest[cpu]: Invalid value: min value 2 is greater than default request value 1"}},
		{"ratio below one", lr(corev1.LimitRangeItem{Type: "Container", MaxLimitRequestRatio: corev1.ResourceList{"cpu": q("500m")}}),
			[]string{"spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: ratio 500m is less than 1"}},
		{"ratio above max over min", lr(corev1.LimitRangeItem{Type: "Container", Min: corev1.ResourceList{"cpu": q("1")}, Max: corev1.ResourceList{"cpu": q("2")}, MaxLimitRequestRatio: corev1.ResourceList{"cpu": q("3")}}),
			[]string{"spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: ratio 3 is greater than max/min = 2.000000"}},
		{"pod defaults", lr(corev1.LimitRangeItem{Type: "Pod", Default: corev1.ResourceList{"cpu": q("1")}, DefaultRequest: corev1.ResourceList{"cpu": q("1")}}),
			[]string{"spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'", "spec.limits[0].defaultRequest: Forbidden: may not be specified when `type` is 'Pod'"}},
		{"unknown type", lr(corev1.LimitRangeItem{Type: "Node"}),
			[]string{"spec.limits[0].type: Invalid value: must be a standard limit type or fully qualified"}},
		{"duplicate type", lr(corev1.LimitRangeItem{Type: "Container"}, corev1.LimitRangeItem{Type: "Container"}),
			[]string{"spec.limits[1].type: Duplicate value: "}},
		{"pvc without storage bounds", lr(corev1.LimitRangeItem{Type: "PersistentVolumeClaim"}),
			[]string{"spec.limits[0].limits: Required value: either minimum or maximum storage value is required, but neither was provided"}},
		{"container resource name", lr(corev1.LimitRangeItem{Type: "Container", Max: corev1.ResourceList{"storage": q("1Gi")}}),
			[]string{"spec.limits[0].max[storage]: Invalid value: must be a standard resource for containers"}},
		{"huge pages must not overcommit", lr(corev1.LimitRangeItem{Type: "Container", Default: corev1.ResourceList{"hugepages-2Mi": q("4Mi")}, DefaultRequest: corev1.ResourceList{"hugepages-2Mi": q("2Mi")}}),
			[]string{"spec.limits[0].defaultRequest[hugepages-2Mi]: Invalid value: default value 4Mi must equal to defaultRequest value 2Mi in hugepages-2Mi"}},
	}
	for _, tt := range tests {
		checkErrors(t, tt.name, ValidateLimitRange(tt.lr), tt.want)
	}
}
