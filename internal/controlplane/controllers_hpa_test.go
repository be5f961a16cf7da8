package controlplane

import (
	"context"
	"fmt"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// TestHorizontalPodAutoscalerWithoutMetrics runs the HPA controller behind
// a real server, which serves no metrics API: an HPA on a Deployment gets
// upstream's conditions, status and events and `kubectl get hpa` shows
// an unknown current value; an HPA whose target is above maxReplicas
// scales it down to the bound.
func TestHorizontalPodAutoscalerWithoutMetrics(t *testing.T) {
	s := startServer(t, "memory")
	cs, err := kubernetes.NewForConfig(s.restCfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const ns = "bench"
	for name, replicas := range map[string]int32{"web": 2, "big": 4} {
		if _, err := cs.AppsV1().Deployments(ns).Create(ctx, hpaDeployment(name, replicas), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		max := int32(5)
		if name == "big" {
			max = 3
		}
		if _, err := cs.AutoscalingV2().HorizontalPodAutoscalers(ns).Create(ctx, cpuHPA(name, max), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	metricsErr := "the HPA was unable to compute the replica count: failed to get cpu utilization: unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: the server could not find the requested resource"
	poll(t, "the HPA's conditions", func(ctx context.Context) (bool, error) {
		hpa, err := cs.AutoscalingV2().HorizontalPodAutoscalers(ns).Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		conds := map[autoscalingv2.HorizontalPodAutoscalerConditionType]autoscalingv2.HorizontalPodAutoscalerCondition{}
		for _, c := range hpa.Status.Conditions {
			conds[c.Type] = c
		}
		able, active := conds[autoscalingv2.AbleToScale], conds[autoscalingv2.ScalingActive]
		if able.Reason != "SucceededGetScale" || active.Reason != "FailedGetResourceMetric" {
			return false, fmt.Errorf("conditions %+v", hpa.Status.Conditions)
		}
		if active.Status != corev1.ConditionFalse || active.Message != metricsErr {
			return false, fmt.Errorf("ScalingActive %+v", active)
		}
		st := hpa.Status
		if st.CurrentReplicas != 2 || st.ObservedGeneration == nil || *st.ObservedGeneration != hpa.Generation || len(st.CurrentMetrics) != 1 {
			return false, fmt.Errorf("status %+v", st)
		}
		return true, nil
	})
	poll(t, "the events of the HPA", func(ctx context.Context) (bool, error) {
		evs, err := cs.EventsV1().Events(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		seen := map[string]bool{}
		for _, e := range evs.Items {
			if e.Regarding.Kind == "HorizontalPodAutoscaler" && e.Regarding.Name == "web" && e.Type == corev1.EventTypeWarning {
				seen[e.Reason] = true
			}
		}
		return seen["FailedGetResourceMetric"] && seen["FailedComputeMetricsReplicas"], nil
	})
	poll(t, "the big Deployment scaled down to maxReplicas", func(ctx context.Context) (bool, error) {
		d, err := cs.AppsV1().Deployments(ns).Get(ctx, "big", metav1.GetOptions{})
		if err != nil || *d.Spec.Replicas != 3 {
			return false, err
		}
		hpa, err := cs.AutoscalingV2().HorizontalPodAutoscalers(ns).Get(ctx, "big", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return hpa.Status.LastScaleTime != nil && hpa.Status.DesiredReplicas == 3, nil
	})
	raw, err := cs.AutoscalingV2().RESTClient().Get().Namespace(ns).Resource("horizontalpodautoscalers").Name("web").
		SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"cpu: \u003cunknown\u003e/50%"`) && !strings.Contains(string(raw), `"cpu: <unknown>/50%"`) {
		t.Errorf("table has no TARGETS cpu: <unknown>/50%%: %s", raw)
	}
}

func hpaDeployment(name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1"}}},
			},
		},
	}
}

func cpuHPA(name string, max int32) *autoscalingv2.HorizontalPodAutoscaler {
	return &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: name},
			MinReplicas:    ptr.To[int32](1), MaxReplicas: max,
			Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
				Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](50)},
			}}},
		},
	}
}
