package podautoscaler

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	scalefake "k8s.io/client-go/scale/fake"
	core "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
)

var testNow = time.Date(2026, 11, 28, 3, 0, 0, 0, time.UTC)

// noMetricsAPI answers as the metrics clients do against a server that
// serves none of the metrics APIs.
type noMetricsAPI struct{}

// notFound is what client-go makes of kube-apiserver's 404 Status for a
// path no API serves.
func notFound(string, string) error {
	return apierrors.NewGenericServerResponse(404, "", schema.GroupResource{}, "", "", 0, false)
}

func (noMetricsAPI) GetResourceMetric(context.Context, corev1.ResourceName, string, labels.Selector, string) error {
	return fmt.Errorf("unable to fetch metrics from resource metrics API: %w", notFound("metrics.k8s.io", "pods"))
}

func (noMetricsAPI) GetRawMetric(context.Context, string, string, labels.Selector, labels.Selector) error {
	return fmt.Errorf("unable to fetch metrics from custom metrics API: %w", errors.New("no custom metrics API (custom.metrics.k8s.io) registered"))
}

func (noMetricsAPI) GetObjectMetric(context.Context, string, string, *autoscalingv2.CrossVersionObjectReference, labels.Selector) error {
	return fmt.Errorf("unable to fetch metrics from custom metrics API: %w", errors.New("no custom metrics API (custom.metrics.k8s.io) registered"))
}

func (noMetricsAPI) GetExternalMetric(_ context.Context, name, _ string, _ labels.Selector) error {
	return fmt.Errorf("unable to fetch metrics from external metrics API: %w", notFound("external.metrics.k8s.io", name))
}

// fixture is a controller over fake clients with one HPA "web" on the
// Deployment "web" in namespace "ns".
type fixture struct {
	c       *Controller
	client  *fake.Clientset
	scales  *scalefake.FakeScaleClient
	events  chan string
	updated []int32 // replica counts written to the scale
	hpas    cache.Indexer
}

func newHPA(mutate func(*autoscalingv2.HorizontalPodAutoscaler)) *autoscalingv2.HorizontalPodAutoscaler {
	hpa := &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", UID: "hpa-uid", Generation: 3},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
			MinReplicas:    ptr.To[int32](1), MaxReplicas: 5,
			Metrics: []autoscalingv2.MetricSpec{cpuMetric()},
		},
	}
	if mutate != nil {
		mutate(hpa)
	}
	return hpa
}

func cpuMetric() autoscalingv2.MetricSpec {
	return autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
		Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](50)},
	}}
}

// newFixture serves the Deployment's scale with replicas (none when
// replicas is nil) and selector.
func newFixture(t testing.TB, hpa *autoscalingv2.HorizontalPodAutoscaler, replicas *int32, selector string) *fixture {
	t.Helper()
	f := &fixture{client: fake.NewClientset(hpa), events: make(chan string, 20)}
	f.scales = &scalefake.FakeScaleClient{}
	f.scales.AddReactor("get", "deployments", func(core.Action) (bool, runtime.Object, error) {
		if replicas == nil {
			return true, nil, apierrors.NewNotFound(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web")
		}
		return true, &autoscalingv1.Scale{
			ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", ResourceVersion: "7"},
			Spec:       autoscalingv1.ScaleSpec{Replicas: *replicas},
			Status:     autoscalingv1.ScaleStatus{Replicas: *replicas, Selector: selector},
		}, nil
	})
	f.scales.AddReactor("update", "deployments", func(a core.Action) (bool, runtime.Object, error) {
		sc := a.(core.UpdateAction).GetObject().(*autoscalingv1.Scale)
		f.updated = append(f.updated, sc.Spec.Replicas)
		return true, sc, nil
	})
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{{Group: "apps", Version: "v1"}})
	mapper.Add(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, meta.RESTScopeNamespace)
	factory := informers.NewSharedInformerFactory(f.client, 0)
	hpas, pods := factory.Autoscaling().V2().HorizontalPodAutoscalers(), factory.Core().V1().Pods()
	f.hpas = hpas.Informer().GetIndexer()
	if err := f.hpas.Add(hpa); err != nil {
		t.Fatal(err)
	}
	c, err := New(Config{
		Client: f.client, Scales: f.scales, Mapper: mapper, Metrics: noMetricsAPI{},
		HPAs: hpas, Pods: pods, Recorder: &events.FakeRecorder{Events: f.events},
		Clock: clocktesting.NewFakeClock(testNow),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.queue.ShutDown)
	f.c = c
	return f
}

// sync reconciles the HPA once and returns its stored status and the
// events recorded.
func (f *fixture) sync(t *testing.T) (autoscalingv2.HorizontalPodAutoscalerStatus, []string) {
	t.Helper()
	if _, err := f.c.reconcileKey(context.Background(), "ns/web"); err != nil {
		t.Logf("reconcile: %v", err)
	}
	got, err := f.client.AutoscalingV2().HorizontalPodAutoscalers("ns").Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var evs []string
	for {
		select {
		case e := <-f.events:
			evs = append(evs, e)
		default:
			return got.Status, evs
		}
	}
}

type cond struct {
	status corev1.ConditionStatus
	reason string
	msg    string
}

func conditions(st autoscalingv2.HorizontalPodAutoscalerStatus) map[autoscalingv2.HorizontalPodAutoscalerConditionType]cond {
	m := map[autoscalingv2.HorizontalPodAutoscalerConditionType]cond{}
	for _, c := range st.Conditions {
		m[c.Type] = cond{c.Status, c.Reason, c.Message}
	}
	return m
}

const (
	cpuErr      = "failed to get cpu utilization: unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: the server could not find the requested resource"
	unableToGet = "the HPA controller was able to get the target's current scale"
)

func TestReconcileConditions(t *testing.T) {
	able := cond{corev1.ConditionTrue, "SucceededGetScale", unableToGet}
	cases := []struct {
		name     string
		mutate   func(*autoscalingv2.HorizontalPodAutoscaler)
		replicas *int32
		selector string
		want     map[autoscalingv2.HorizontalPodAutoscalerConditionType]cond
		events   []string
	}{{
		name: "resource metric without metrics API", replicas: ptr.To[int32](2),
		want: map[autoscalingv2.HorizontalPodAutoscalerConditionType]cond{
			autoscalingv2.AbleToScale:   able,
			autoscalingv2.ScalingActive: {corev1.ConditionFalse, "FailedGetResourceMetric", "the HPA was unable to compute the replica count: " + cpuErr},
		},
		events: []string{
			"Warning FailedGetResourceMetric " + cpuErr,
			"Warning FailedComputeMetricsReplicas invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: " + cpuErr,
		},
	}, {
		name: "average value resource metric", replicas: ptr.To[int32](2),
		mutate: func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.Metrics[0].Resource.Target = autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: ptr.To(resource.MustParse("100m"))}
		},
		want: map[autoscalingv2.HorizontalPodAutoscalerConditionType]cond{
			autoscalingv2.AbleToScale: able,
			autoscalingv2.ScalingActive: {corev1.ConditionFalse, "FailedGetResourceMetric",
				"the HPA was unable to compute the replica count: failed to get cpu usage: unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: the server could not find the requested resource"},
		},
	}, {
		name: "container resource metric", replicas: ptr.To[int32](2),
		mutate: func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.Metrics = []autoscalingv2.MetricSpec{{Type: autoscalingv2.ContainerResourceMetricSourceType, ContainerResource: &autoscalingv2.ContainerResourceMetricSource{
				Name: corev1.ResourceMemory, Container: "app", Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](60)},
			}}}
		},
		want: map[autoscalingv2.HorizontalPodAutoscalerConditionType]cond{
			autoscalingv2.AbleToScale: able,
			autoscalingv2.ScalingActive: {corev1.ConditionFalse, "FailedGetContainerResourceMetric",
				"the HPA was unable to compute the replica count: failed to get memory utilization: unable to get metrics for resource memory: unable to fetch metrics from resource metrics API: the server could not find the requested resource"},
		},
		events: []string{
			"Warning FailedGetContainerResourceMetric failed to get memory utilization: unable to get metrics for resource memory: unable to fetch metrics from resource metrics API: the server could not find the requested resource",
			"Warning FailedComputeMetricsReplicas invalid metrics (1 invalid out of 1), first error is: failed to get app container metric value: failed to get memory utilization: unable to get metrics for resource memory: unable to fetch metrics from resource metrics API: the server could not find the requested resource",
		},
	}, {
		name: "pods metric", replicas: ptr.To[int32](2),
		mutate: func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.Metrics = []autoscalingv2.MetricSpec{{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricSource{
				Metric: autoscalingv2.MetricIdentifier{Name: "qps"}, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: ptr.To(resource.MustParse("10"))},
			}}}
		},
		want: map[autoscalingv2.HorizontalPodAutoscalerConditionType]cond{
			autoscalingv2.AbleToScale: able,
			autoscalingv2.ScalingActive: {corev1.ConditionFalse, "FailedGetPodsMetric",
				"the HPA was unable to compute the replica count: unable to get metric qps: unable to fetch metrics from custom metrics API: no custom metrics API (custom.metrics.k8s.io) registered"},
		},
		events: []string{
			"Warning FailedGetPodsMetric unable to get metric qps: unable to fetch metrics from custom metrics API: no custom metrics API (custom.metrics.k8s.io) registered",
			"Warning FailedComputeMetricsReplicas invalid metrics (1 invalid out of 1), first error is: failed to get pods metric value: unable to get metric qps: unable to fetch metrics from custom metrics API: no custom metrics API (custom.metrics.k8s.io) registered",
		},
	}, {
		name: "object metric", replicas: ptr.To[int32](2),
		mutate: func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.Metrics = []autoscalingv2.MetricSpec{{Type: autoscalingv2.ObjectMetricSourceType, Object: &autoscalingv2.ObjectMetricSource{
				DescribedObject: autoscalingv2.CrossVersionObjectReference{APIVersion: "networking.k8s.io/v1", Kind: "Ingress", Name: "main"},
				Metric:          autoscalingv2.MetricIdentifier{Name: "rps"}, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: ptr.To(resource.MustParse("10k"))},
			}}}
		},
		want: map[autoscalingv2.HorizontalPodAutoscalerConditionType]cond{
			autoscalingv2.AbleToScale: able,
			autoscalingv2.ScalingActive: {corev1.ConditionFalse, "FailedGetObjectMetric",
				"the HPA was unable to compute the replica count: unable to get metric rps on Ingress ns/main: unable to fetch metrics from custom metrics API: no custom metrics API (custom.metrics.k8s.io) registered"},
		},
	}, {
		name: "external metric", replicas: ptr.To[int32](2),
		mutate: func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.Metrics = []autoscalingv2.MetricSpec{{Type: autoscalingv2.ExternalMetricSourceType, External: &autoscalingv2.ExternalMetricSource{
				Metric: autoscalingv2.MetricIdentifier{Name: "queue_len", Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"q": "jobs"}}},
				Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: ptr.To(resource.MustParse("30"))},
			}}}
		},
		want: map[autoscalingv2.HorizontalPodAutoscalerConditionType]cond{
			autoscalingv2.AbleToScale: able,
			autoscalingv2.ScalingActive: {corev1.ConditionFalse, "FailedGetExternalMetric",
				"the HPA was unable to compute the replica count: unable to get external metric ns/queue_len/&LabelSelector{MatchLabels:map[string]string{q: jobs,},MatchExpressions:[]LabelSelectorRequirement{},}: unable to fetch metrics from external metrics API: the server could not find the requested resource"},
		},
	}, {
		name: "two metrics report the first", replicas: ptr.To[int32](2),
		mutate: func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.Metrics = append(h.Spec.Metrics, autoscalingv2.MetricSpec{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricSource{
				Metric: autoscalingv2.MetricIdentifier{Name: "qps"}, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: ptr.To(resource.MustParse("10"))},
			}})
		},
		want: map[autoscalingv2.HorizontalPodAutoscalerConditionType]cond{
			autoscalingv2.AbleToScale:   able,
			autoscalingv2.ScalingActive: {corev1.ConditionFalse, "FailedGetResourceMetric", "the HPA was unable to compute the replica count: " + cpuErr},
		},
	}, {
		name:     "missing target",
		want:     map[autoscalingv2.HorizontalPodAutoscalerConditionType]cond{autoscalingv2.AbleToScale: {corev1.ConditionFalse, "FailedGetScale", `the HPA controller was unable to get the target's current scale: deployments.apps "web" not found`}},
		events:   []string{`Warning FailedGetScale deployments.apps "web" not found`},
		replicas: nil,
	}, {
		name:   "unknown kind",
		mutate: func(h *autoscalingv2.HorizontalPodAutoscaler) { h.Spec.ScaleTargetRef.Kind = "Gizmo" },
		want: map[autoscalingv2.HorizontalPodAutoscalerConditionType]cond{autoscalingv2.AbleToScale: {corev1.ConditionFalse, "FailedGetScale",
			`the HPA controller was unable to get the target's current scale: no matches for apps/, Resource=Gizmo`}},
		replicas: ptr.To[int32](2),
	}, {
		name: "target scaled to zero", replicas: ptr.To[int32](0),
		want: map[autoscalingv2.HorizontalPodAutoscalerConditionType]cond{
			autoscalingv2.AbleToScale:   able,
			autoscalingv2.ScalingActive: {corev1.ConditionFalse, "ScalingDisabled", "scaling is disabled since the replica count of the target is zero"},
		},
	}, {
		name: "scale without selector", replicas: ptr.To[int32](2), selector: "-",
		want: map[autoscalingv2.HorizontalPodAutoscalerConditionType]cond{
			autoscalingv2.AbleToScale:   able,
			autoscalingv2.ScalingActive: {corev1.ConditionFalse, "InvalidSelector", "the HPA target's scale is missing a selector"},
		},
		events: []string{"Warning SelectorRequired selector is required", "Warning FailedComputeMetricsReplicas selector is required"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sel := "app=web"
			if tc.selector == "-" {
				sel = ""
			}
			f := newFixture(t, newHPA(tc.mutate), tc.replicas, sel)
			st, evs := f.sync(t)
			got := conditions(st)
			if len(got) != len(tc.want) {
				t.Errorf("conditions %v, want %v", got, tc.want)
			}
			for typ, w := range tc.want {
				if got[typ] != w {
					t.Errorf("%s:\n got %+v\nwant %+v", typ, got[typ], w)
				}
			}
			if tc.events != nil && strings.Join(evs, "\n") != strings.Join(tc.events, "\n") {
				t.Errorf("events:\n%s\nwant:\n%s", strings.Join(evs, "\n"), strings.Join(tc.events, "\n"))
			}
			if len(f.updated) != 0 {
				t.Errorf("scale written %v", f.updated)
			}
			for _, c := range st.Conditions {
				if !c.LastTransitionTime.Time.Equal(testNow) {
					t.Errorf("%s transition time %v, want the clock's", c.Type, c.LastTransitionTime)
				}
			}
		})
	}
}
