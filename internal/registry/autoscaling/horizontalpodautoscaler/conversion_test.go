package horizontalpodautoscaler

import (
	"time"

	"testing"

	"github.com/google/go-cmp/cmp"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/utils/ptr"

	kapiautoscalingv1 "github.com/kapi-dev/kapi/internal/apis/autoscaling/v1"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// asV1 encodes a stored HPA as an autoscaling/v1 client reads it.
func asV1(t *testing.T, codecs serializer.CodecFactory, hpa *autoscalingv2.HorizontalPodAutoscaler) []byte {
	t.Helper()
	data, err := runtime.Encode(codecs.LegacyCodec(autoscalingv1.SchemeGroupVersion), hpa)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// fromBody decodes a body the way the handlers do: into the v2 hub, with
// the body version's defaults, then the hub's.
func fromBody(t *testing.T, scheme *runtime.Scheme, codecs serializer.CodecFactory, data []byte) *autoscalingv2.HorizontalPodAutoscaler {
	t.Helper()
	obj, _, err := codecs.UniversalDecoder(autoscalingv2.SchemeGroupVersion).Decode(data, nil, &autoscalingv2.HorizontalPodAutoscaler{})
	if err != nil {
		t.Fatalf("decoding %s: %v", data, err)
	}
	scheme.Default(obj)
	return obj.(*autoscalingv2.HorizontalPodAutoscaler)
}

func TestV1RoundTrip(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	codecs := serializer.NewCodecFactory(scheme)
	m, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	store := m["horizontalpodautoscalers"].(rest.StandardStorage)
	ctx := registrytest.NamespaceContext("ns")

	// Created as v1: stored as v2 with the CPU target as a metric.
	v1body := []byte(`{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"a","namespace":"ns","annotations":{"team":"x"}},
		"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"maxReplicas":4,"targetCPUUtilizationPercentage":60}}`)
	obj, err := store.Create(ctx, fromBody(t, scheme, codecs, v1body), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	stored := obj.(*autoscalingv2.HorizontalPodAutoscaler)
	want := []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
		Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](60)}}}}
	if diff := cmp.Diff(want, stored.Spec.Metrics); diff != "" || *stored.Spec.MinReplicas != 1 {
		t.Errorf("stored metrics (-want +got):\n%s minReplicas %d", diff, *stored.Spec.MinReplicas)
	}
	// Read as v1: nothing v2-only, so no annotation but the user's.
	var v1 autoscalingv1.HorizontalPodAutoscaler
	if err := runtime.DecodeInto(codecs.UniversalDeserializer(), asV1(t, codecs, stored), &v1); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"team": "x"}, v1.Annotations); diff != "" || *v1.Spec.TargetCPUUtilizationPercentage != 60 {
		t.Errorf("v1 annotations (-want +got):\n%s target %v", diff, v1.Spec.TargetCPUUtilizationPercentage)
	}
	// Written back as v1: the same v2 object.
	back := fromBody(t, scheme, codecs, asV1(t, codecs, stored))
	stored.TypeMeta, back.TypeMeta = metav1.TypeMeta{}, metav1.TypeMeta{}
	if !equality.Semantic.DeepEqual(stored, back) {
		t.Errorf("v1 round trip changed the object:\n%s", cmp.Diff(stored, back))
	}
}

func TestV2OnlyFieldsSurviveV1(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	codecs := serializer.NewCodecFactory(scheme)
	hpa := &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "ns"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
			MaxReplicas:    10,
			Metrics: []autoscalingv2.MetricSpec{
				{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
					Name: corev1.ResourceMemory, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: ptr.To(resource.MustParse("500Mi"))}}},
				{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricSource{
					Metric: autoscalingv2.MetricIdentifier{Name: "qps"}, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: ptr.To(resource.MustParse("10"))}}},
			},
			Behavior: &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleDown: &autoscalingv2.HPAScalingRules{
				StabilizationWindowSeconds: ptr.To[int32](300), Tolerance: ptr.To(resource.MustParse("50m"))}},
		},
		Status: autoscalingv2.HorizontalPodAutoscalerStatus{
			CurrentReplicas: 3,
			Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{{
				Type: autoscalingv2.AbleToScale, Status: corev1.ConditionTrue, Reason: "ReadyForNewScale", LastTransitionTime: metav1.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}},
		},
	}
	scheme.Default(hpa)

	data := asV1(t, codecs, hpa)
	var v1 autoscalingv1.HorizontalPodAutoscaler
	if err := runtime.DecodeInto(codecs.UniversalDeserializer(), data, &v1); err != nil {
		t.Fatal(err)
	}
	if v1.Spec.TargetCPUUtilizationPercentage != nil {
		t.Errorf("targetCPUUtilizationPercentage = %d, want unset", *v1.Spec.TargetCPUUtilizationPercentage)
	}
	for _, key := range []string{kapiautoscalingv1.MetricSpecsAnnotation, kapiautoscalingv1.BehaviorSpecsAnnotation, kapiautoscalingv1.ConditionsAnnotation} {
		if _, ok := v1.Annotations[key]; !ok {
			t.Errorf("v1 object lacks %s: %v", key, v1.Annotations)
		}
	}
	// Upstream encodes behavior with its internal type's Go field names.
	wantBehavior := `{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15},{"Type":"Percent","Value":100,"PeriodSeconds":15}],"Tolerance":null},` +
		`"ScaleDown":{"StabilizationWindowSeconds":300,"SelectPolicy":"Max","Policies":[{"Type":"Percent","Value":100,"PeriodSeconds":15}],"Tolerance":"50m"}}`
	if got := v1.Annotations[kapiautoscalingv1.BehaviorSpecsAnnotation]; got != wantBehavior {
		t.Errorf("behavior annotation\n got %s\nwant %s", got, wantBehavior)
	}

	back := fromBody(t, scheme, codecs, data)
	if len(back.Annotations) != 0 {
		t.Errorf("round-trip annotations leaked into v2: %v", back.Annotations)
	}
	if !equality.Semantic.DeepEqual(hpa, back) {
		t.Errorf("v2 -> v1 -> v2 changed the object:\n%s", cmp.Diff(hpa, back))
	}
}

func TestV1WithoutMetricsTargetsDefaultCPU(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	codecs := serializer.NewCodecFactory(scheme)
	hpa := fromBody(t, scheme, codecs, []byte(`{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"c"},
		"spec":{"scaleTargetRef":{"kind":"Deployment","name":"web"},"maxReplicas":4}}`))
	if len(hpa.Spec.Metrics) != 1 || *hpa.Spec.Metrics[0].Resource.Target.AverageUtilization != 80 {
		t.Errorf("metrics = %+v, want cpu 80%%", hpa.Spec.Metrics)
	}
}
