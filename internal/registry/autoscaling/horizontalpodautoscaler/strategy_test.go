package horizontalpodautoscaler

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	kapiautoscalingv2 "github.com/kapi-dev/kapi/internal/apis/autoscaling/v2"
)

func newHPA() *autoscalingv2.HorizontalPodAutoscaler {
	hpa := &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
			MaxReplicas:    5,
		},
	}
	kapiautoscalingv2.SetDefaultsHorizontalPodAutoscaler(hpa)
	return hpa
}

func describe(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, string(e.Type)+" "+e.Field)
	}
	slices.Sort(out)
	return out
}

func TestDefaults(t *testing.T) {
	hpa := newHPA()
	hpa.Spec.Behavior = &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleUp: &autoscalingv2.HPAScalingRules{SelectPolicy: ptr.To(autoscalingv2.MinChangePolicySelect)}}
	kapiautoscalingv2.SetDefaultsHorizontalPodAutoscaler(hpa)
	want := &autoscalingv2.HorizontalPodAutoscalerBehavior{
		ScaleUp: &autoscalingv2.HPAScalingRules{
			StabilizationWindowSeconds: ptr.To[int32](0),
			SelectPolicy:               ptr.To(autoscalingv2.MinChangePolicySelect),
			Policies: []autoscalingv2.HPAScalingPolicy{
				{Type: autoscalingv2.PodsScalingPolicy, Value: 4, PeriodSeconds: 15},
				{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15},
			},
		},
		ScaleDown: &autoscalingv2.HPAScalingRules{
			SelectPolicy: ptr.To(autoscalingv2.MaxChangePolicySelect),
			Policies:     []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15}},
		},
	}
	if diff := cmp.Diff(want, hpa.Spec.Behavior); diff != "" {
		t.Errorf("behavior (-want +got):\n%s", diff)
	}
	if *hpa.Spec.MinReplicas != 1 || *hpa.Spec.Metrics[0].Resource.Target.AverageUtilization != 80 {
		t.Errorf("spec defaults: %+v", hpa.Spec)
	}
}

func TestValidate(t *testing.T) {
	pods := func(m *autoscalingv2.MetricSpec) *autoscalingv2.MetricSpec {
		m.Type = autoscalingv2.PodsMetricSourceType
		return m
	}
	tests := []struct {
		name   string
		mutate func(*autoscalingv2.HorizontalPodAutoscaler)
		want   []string
	}{
		{"valid", func(*autoscalingv2.HorizontalPodAutoscaler) {}, nil},
		{"no target", func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.ScaleTargetRef = autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1"}
		},
			[]string{"FieldValueRequired spec.scaleTargetRef.kind", "FieldValueRequired spec.scaleTargetRef.name"}},
		{"core group target", func(h *autoscalingv2.HorizontalPodAutoscaler) { h.Spec.ScaleTargetRef.APIVersion = "v1" },
			[]string{"FieldValueInvalid spec.scaleTargetRef.apiVersion"}},
		{"replication controller", func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.ScaleTargetRef = autoscalingv2.CrossVersionObjectReference{APIVersion: "v1", Kind: "ReplicationController", Name: "rc"}
		}, nil},
		{"minReplicas 0", func(h *autoscalingv2.HorizontalPodAutoscaler) { h.Spec.MinReplicas = ptr.To[int32](0) },
			[]string{"FieldValueForbidden spec.metrics", "FieldValueInvalid spec.minReplicas"}},
		{"max below min", func(h *autoscalingv2.HorizontalPodAutoscaler) { h.Spec.MinReplicas = ptr.To[int32](6) },
			[]string{"FieldValueInvalid spec.maxReplicas"}},
		{"maxReplicas 0", func(h *autoscalingv2.HorizontalPodAutoscaler) { h.Spec.MaxReplicas = 0 },
			[]string{"FieldValueInvalid spec.maxReplicas", "FieldValueInvalid spec.maxReplicas"}},
		{"utilization 0", func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.Metrics[0].Resource.Target.AverageUtilization = ptr.To[int32](0)
		},
			[]string{"FieldValueInvalid spec.metrics[0].resource.target.averageUtilization"}},
		{"both targets", func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.Metrics[0].Resource.Target.AverageValue = ptr.To(resource.MustParse("1"))
		}, []string{"FieldValueForbidden spec.metrics[0].resource.target.averageValue"}},
		{"wrong source for type", func(h *autoscalingv2.HorizontalPodAutoscaler) { pods(&h.Spec.Metrics[0]) },
			[]string{"FieldValueRequired spec.metrics[0].pods"}},
		{"two sources", func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.Metrics[0].Pods = &autoscalingv2.PodsMetricSource{Metric: autoscalingv2.MetricIdentifier{Name: "qps"},
				Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: ptr.To(resource.MustParse("1"))}}
		}, []string{"FieldValueForbidden spec.metrics[0].pods"}},
		{"unknown type", func(h *autoscalingv2.HorizontalPodAutoscaler) { h.Spec.Metrics[0].Type = "Magic" },
			[]string{"FieldValueNotSupported spec.metrics[0].type"}},
		{"pods without metric name", func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.Metrics = []autoscalingv2.MetricSpec{{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricSource{
				Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType}}}}
		}, []string{"FieldValueRequired spec.metrics[0].pods.metric.name", "FieldValueRequired spec.metrics[0].pods.target.averageValue"}},
		{"behavior policies", func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.Behavior = &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleUp: &autoscalingv2.HPAScalingRules{
				StabilizationWindowSeconds: ptr.To[int32](4000),
				SelectPolicy:               ptr.To(autoscalingv2.ScalingPolicySelect("Any")),
				Policies:                   []autoscalingv2.HPAScalingPolicy{{Type: "Nodes", Value: 0, PeriodSeconds: 2000}},
			}, ScaleDown: &autoscalingv2.HPAScalingRules{}}
		}, []string{
			"FieldValueInvalid spec.behavior.scaleUp.policies[0].periodSeconds",
			"FieldValueInvalid spec.behavior.scaleUp.policies[0].value",
			"FieldValueInvalid spec.behavior.scaleUp.stabilizationWindowSeconds",
			"FieldValueNotSupported spec.behavior.scaleUp.policies[0].type",
			"FieldValueNotSupported spec.behavior.scaleUp.selectPolicy",
			"FieldValueRequired spec.behavior.scaleDown.policies",
		}},
	}
	s := NewStrategy(runtime.NewScheme())
	for _, tt := range tests {
		hpa := newHPA()
		tt.mutate(hpa)
		if diff := cmp.Diff(tt.want, describe(s.Validate(context.Background(), hpa))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestValidateUpdateKeepsStoredReference(t *testing.T) {
	s := NewStrategy(runtime.NewScheme())
	old := newHPA()
	old.ResourceVersion = "1"
	old.Spec.ScaleTargetRef.APIVersion = "v1" // stored before apiVersion was checked
	hpa := old.DeepCopy()
	hpa.Spec.MaxReplicas = 9
	if errs := s.ValidateUpdate(context.Background(), hpa, old); len(errs) != 0 {
		t.Errorf("kept reference: %v", errs)
	}
	hpa.Spec.ScaleTargetRef.Kind = "StatefulSet"
	if diff := cmp.Diff([]string{"FieldValueInvalid spec.scaleTargetRef.apiVersion"}, describe(s.ValidateUpdate(context.Background(), hpa, old))); diff != "" {
		t.Errorf("changed reference (-want +got):\n%s", diff)
	}
}

func TestTable(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	hpa := newHPA()
	hpa.CreationTimestamp = metav1.NewTime(now.Add(-2 * time.Hour))
	hpa.Spec.Metrics = append(hpa.Spec.Metrics,
		autoscalingv2.MetricSpec{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricSource{Target: autoscalingv2.MetricTarget{AverageValue: ptr.To(resource.MustParse("10"))}}},
		autoscalingv2.MetricSpec{Type: autoscalingv2.ExternalMetricSourceType, External: &autoscalingv2.ExternalMetricSource{Target: autoscalingv2.MetricTarget{Value: ptr.To(resource.MustParse("3"))}}},
	)
	hpa.Status.CurrentReplicas = 2
	hpa.Status.CurrentMetrics = []autoscalingv2.MetricStatus{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricStatus{
		Name: corev1.ResourceCPU, Current: autoscalingv2.MetricValueStatus{AverageUtilization: ptr.To[int32](12)}}}}
	table, err := Table().WithClock(func() time.Time { return now }).ConvertToTable(context.Background(), hpa, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []any{"web", "Deployment/web", "cpu: 12%/80%, <unknown>/10 + 1 more...", "1", int64(5), int64(2), "120m"}
	if diff := cmp.Diff(want, table.Rows[0].Cells); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
	if got := targets(nil, nil); got != "<none>" {
		t.Errorf("no metrics: %q", got)
	}
}
