package podautoscaler

import (
	"context"
	"errors"
	"strings"
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	core "k8s.io/client-go/testing"
	cmv1beta2 "k8s.io/metrics/pkg/apis/custom_metrics/v1beta2"
	emv1beta1 "k8s.io/metrics/pkg/apis/external_metrics/v1beta1"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	metricsfake "k8s.io/metrics/pkg/client/clientset/versioned/fake"
	cmfake "k8s.io/metrics/pkg/client/custom_metrics/fake"
	emfake "k8s.io/metrics/pkg/client/external_metrics/fake"
)

// TestRESTMetricsClient pins what each metrics API's answer becomes:
// upstream's wrapping of a failed request, upstream's message for an
// empty answer, and ErrMetricValuesUnused for values kapi does not use.
func TestRESTMetricsClient(t *testing.T) {
	noAPI := notFound("", "")
	noCustom := errors.New("no custom metrics API (custom.metrics.k8s.io) registered")
	cases := []struct {
		name  string
		items int
		err   error
		want  string
	}{
		{"unserved", 0, noAPI, "unable to fetch metrics from %s metrics API: " + noAPI.Error()},
		{"empty", 0, nil, "no metrics returned from %s metrics API"},
		{"values", 1, nil, ErrMetricValuesUnused.Error()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := fakeMetrics(tc.items, tc.err, noCustom)
			ctx, sel := context.Background(), labels.Everything()
			check := func(api string, err error, want string) {
				t.Helper()
				if err == nil || err.Error() != want {
					t.Errorf("%s: %v, want %q", api, err, want)
				}
			}
			check("resource", m.GetResourceMetric(ctx, corev1.ResourceCPU, "ns", sel, ""), sprintf(tc.want, "resource"))
			check("external", m.GetExternalMetric(ctx, "q", "ns", sel), sprintf(tc.want, "external"))
			customWant := sprintf(tc.want, "custom")
			if tc.err != nil {
				customWant = "unable to fetch metrics from custom metrics API: " + noCustom.Error()
			}
			check("custom", m.GetRawMetric(ctx, "qps", "ns", sel, sel), customWant)
			if tc.items == 1 {
				ref := &autoscalingv2.CrossVersionObjectReference{APIVersion: "v1", Kind: "Service", Name: "web"}
				check("object", m.GetObjectMetric(ctx, "rps", "ns", ref, sel), ErrMetricValuesUnused.Error())
			}
		})
	}
}

// sprintf names the API in a wanted message.
func sprintf(format, api string) string { return strings.Replace(format, "%s", api, 1) }

// fakeMetrics answers every metrics API with items values or err; the
// custom metrics API, found by discovery, fails with customErr instead.
func fakeMetrics(items int, err, customErr error) RESTMetricsClient {
	res := metricsfake.NewSimpleClientset()
	res.PrependReactor("list", "pods", func(core.Action) (bool, runtime.Object, error) {
		if err != nil {
			return true, nil, err
		}
		return true, &metricsv1beta1.PodMetricsList{Items: make([]metricsv1beta1.PodMetrics, items)}, nil
	})
	custom := &cmfake.FakeCustomMetricsClient{}
	custom.AddReactor("get", "*", func(core.Action) (bool, runtime.Object, error) {
		if err != nil {
			return true, nil, customErr
		}
		return true, &cmv1beta2.MetricValueList{Items: make([]cmv1beta2.MetricValue, items)}, nil
	})
	external := &emfake.FakeExternalMetricsClient{}
	external.AddReactor("list", "*", func(core.Action) (bool, runtime.Object, error) {
		if err != nil {
			return true, nil, err
		}
		return true, &emv1beta1.ExternalMetricValueList{Items: make([]emv1beta1.ExternalMetricValue, items)}, nil
	})
	return RESTMetricsClient{Resource: res.MetricsV1beta1(), Custom: custom, External: external}
}
