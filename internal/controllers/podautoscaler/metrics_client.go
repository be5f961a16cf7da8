package podautoscaler

import (
	"context"
	"errors"
	"fmt"
	"strings"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	resourceclient "k8s.io/metrics/pkg/client/clientset/versioned/typed/metrics/v1beta1"
	customclient "k8s.io/metrics/pkg/client/custom_metrics"
	externalclient "k8s.io/metrics/pkg/client/external_metrics"
)

// ErrMetricValuesUnused is what a metric reports when a metrics API did
// answer with values: kapi computes no replica count from them, and says
// so rather than pretend to autoscale.
var ErrMetricValuesUnused = errors.New("kapi's horizontal pod autoscaler does not compute replica counts from metric values")

// MetricsClient asks the three metrics APIs as upstream's metrics client
// does; each call only says why no usable value came back, worded as
// upstream's client words it.
type MetricsClient interface {
	GetResourceMetric(ctx context.Context, resource corev1.ResourceName, namespace string, selector labels.Selector, container string) error
	GetRawMetric(ctx context.Context, metricName, namespace string, selector, metricSelector labels.Selector) error
	GetObjectMetric(ctx context.Context, metricName, namespace string, ref *autoscalingv2.CrossVersionObjectReference, metricSelector labels.Selector) error
	GetExternalMetric(ctx context.Context, metricName, namespace string, selector labels.Selector) error
}

// RESTMetricsClient queries metrics.k8s.io, custom.metrics.k8s.io and
// external.metrics.k8s.io over the API server, as kube-controller-manager
// does; on kapi without an aggregated metrics server each request fails
// the way it fails upstream.
type RESTMetricsClient struct {
	Resource resourceclient.PodMetricsesGetter
	Custom   customclient.CustomMetricsClient
	External externalclient.ExternalMetricsClient
}

var _ MetricsClient = RESTMetricsClient{}

// GetResourceMetric lists the PodMetrics of selector.
func (m RESTMetricsClient) GetResourceMetric(ctx context.Context, _ corev1.ResourceName, namespace string, selector labels.Selector, _ string) error {
	list, err := m.Resource.PodMetricses(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector.String()})
	if err != nil {
		return fmt.Errorf("unable to fetch metrics from resource metrics API: %w", err)
	}
	if len(list.Items) == 0 {
		return errors.New("no metrics returned from resource metrics API")
	}
	return ErrMetricValuesUnused
}

// GetRawMetric asks the custom metrics API for a metric of the Pods.
func (m RESTMetricsClient) GetRawMetric(_ context.Context, metricName, namespace string, selector, metricSelector labels.Selector) error {
	list, err := m.Custom.NamespacedMetrics(namespace).GetForObjects(schema.GroupKind{Kind: "Pod"}, selector, metricName, metricSelector)
	if err != nil {
		return fmt.Errorf("unable to fetch metrics from custom metrics API: %w", err)
	}
	if len(list.Items) == 0 {
		return errors.New("no metrics returned from custom metrics API")
	}
	return ErrMetricValuesUnused
}

// GetObjectMetric asks the custom metrics API for a metric of one object
// (of the namespace itself for a Namespace reference).
func (m RESTMetricsClient) GetObjectMetric(_ context.Context, metricName, namespace string, ref *autoscalingv2.CrossVersionObjectReference, metricSelector labels.Selector) error {
	gvk := schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind)
	var err error
	if gvk.Kind == "Namespace" && gvk.Group == "" {
		_, err = m.Custom.RootScopedMetrics().GetForObject(gvk.GroupKind(), namespace, metricName, metricSelector)
	} else {
		_, err = m.Custom.NamespacedMetrics(namespace).GetForObject(gvk.GroupKind(), ref.Name, metricName, metricSelector)
	}
	if err != nil {
		return fmt.Errorf("unable to fetch metrics from custom metrics API: %w", err)
	}
	return ErrMetricValuesUnused
}

// GetExternalMetric lists an external metric.
func (m RESTMetricsClient) GetExternalMetric(_ context.Context, metricName, namespace string, selector labels.Selector) error {
	list, err := m.External.NamespacedMetrics(namespace).List(metricName, selector)
	if err != nil {
		return fmt.Errorf("unable to fetch metrics from external metrics API: %w", err)
	}
	if len(list.Items) == 0 {
		return errors.New("no metrics returned from external metrics API")
	}
	return ErrMetricValuesUnused
}

// splitKey splits a namespace/name key.
func splitKey(key string) (string, string, bool) {
	ns, name, ok := strings.Cut(key, "/")
	return ns, name, ok
}
