package validation

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestValidateResourceQuota(t *testing.T) {
	q := resource.MustParse
	quota := func(spec corev1.ResourceQuotaSpec) *corev1.ResourceQuota {
		return &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "q", Namespace: "ns"}, Spec: spec}
	}
	tests := []struct {
		name  string
		quota *corev1.ResourceQuota
		want  []string
	}{
		{"valid", quota(corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"pods": q("10"), "requests.cpu": q("1"), "count/deployments.apps": q("2"), "example.com/gpu": q("1")}}), nil},
		{"unknown name", quota(corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"foo": q("1")}}),
			[]string{"spec.hard[foo]: Invalid value: must be a standard resource type or fully qualified", "spec.hard[foo]: Invalid value: must be a standard resource for quota"}},
		{"storage is not a quota name", quota(corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"storage": q("1Gi")}}),
			[]string{"spec.hard[storage]: Invalid value: must be a standard resource for quota"}},
		{"negative", quota(corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"cpu": q("-1")}}),
			[]string{"spec.hard[cpu]: Invalid value: must be greater than or equal to 0"}},
		{"fractional pods", quota(corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"pods": q("500m")}}),
			[]string{"spec.hard[pods]: Invalid value: must be an integer"}},
		{"scope for resource", quota(corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"services": q("1")}, Scopes: []corev1.ResourceQuotaScope{"Terminating"}}),
			[]string{"spec.scopes: Invalid value: unsupported scope applied to resource"}},
		{"conflicting scopes", quota(corev1.ResourceQuotaSpec{Scopes: []corev1.ResourceQuotaScope{"BestEffort", "NotBestEffort"}}),
			[]string{"spec.scopes: Invalid value: conflicting scopes"}},
		{"unknown scope", quota(corev1.ResourceQuotaSpec{Scopes: []corev1.ResourceQuotaScope{"Sometimes"}}),
			[]string{"spec.scopes: Invalid value: unsupported scope"}},
		{"selector operator", quota(corev1.ResourceQuotaSpec{ScopeSelector: &corev1.ScopeSelector{MatchExpressions: []corev1.ScopedResourceSelectorRequirement{
			{ScopeName: "PriorityClass", Operator: "In"},
			{ScopeName: "BestEffort", Operator: "In", Values: []string{"x"}},
		}}}), []string{
			"spec.scopeSelector.matchExpressions.values: Required value: must be at least one value when `operator` is 'In' or 'NotIn' for scope selector",
			"spec.scopeSelector.matchExpressions.operator: Invalid value: must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity",
		}},
	}
	for _, tt := range tests {
		checkErrors(t, tt.name, ValidateResourceQuota(tt.quota), tt.want)
	}
}

func TestValidateResourceQuotaUpdate(t *testing.T) {
	old := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "q", Namespace: "ns", ResourceVersion: "1"}, Spec: corev1.ResourceQuotaSpec{Scopes: []corev1.ResourceQuotaScope{"BestEffort"}}}
	changed := old.DeepCopy()
	changed.Spec.Scopes = []corev1.ResourceQuotaScope{"NotBestEffort"}
	checkErrors(t, "scopes", ValidateResourceQuotaUpdate(changed, old), []string{"spec.scopes: Invalid value: field is immutable"})
	same := old.DeepCopy()
	same.Spec.Hard = corev1.ResourceList{"pods": resource.MustParse("3")}
	checkErrors(t, "hard", ValidateResourceQuotaUpdate(same, old), nil)
	status := old.DeepCopy()
	status.ResourceVersion = ""
	status.Status.Used = corev1.ResourceList{"pods": resource.MustParse("-1")}
	checkErrors(t, "status", ValidateResourceQuotaStatusUpdate(status, old), []string{
		"metadata.resourceVersion: Invalid value: must be specified for an update",
		"resourceVersion: Required value: ", "status.used[pods]: Invalid value: must be greater than or equal to 0",
	})
}
