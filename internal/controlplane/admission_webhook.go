package controlplane

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	admwebhook "github.com/kapi-dev/kapi/internal/admission/webhook"
	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/webhook"
)

// admissionWebhookTimeout bounds the clients of admission webhooks; each
// call has its own timeoutSeconds (at most 30).
const admissionWebhookTimeout = 30 * time.Second

// webhookAdmissionFactories are MutatingAdmissionWebhook and
// ValidatingAdmissionWebhook over the shared informers.
func webhookAdmissionFactories() map[string]admissionPluginFactory {
	return map[string]admissionPluginFactory{
		admwebhook.MutatingPluginName: func(d *admissionDeps) (any, error) {
			o, err := d.webhookPluginOptions(admwebhook.MutatingPluginName)
			if err != nil {
				return nil, err
			}
			return admwebhook.NewMutating(d.informers.factory.Admissionregistration().V1().MutatingWebhookConfigurations(), o)
		},
		admwebhook.ValidatingPluginName: func(d *admissionDeps) (any, error) {
			o, err := d.webhookPluginOptions(admwebhook.ValidatingPluginName)
			if err != nil {
				return nil, err
			}
			return admwebhook.NewValidating(d.informers.factory.Admissionregistration().V1().ValidatingWebhookConfigurations(), o)
		},
	}
}

// webhookPluginOptions are the shared webhook options, with the client
// credentials of the plugin's WebhookAdmissionConfiguration
// (kubeConfigFile) when --admission-control-config-file gives one.
func (d *admissionDeps) webhookPluginOptions(name string) (admwebhook.Options, error) {
	o := d.webhookOptions()
	if d.pluginConfig == nil {
		return o, nil
	}
	raw, err := d.pluginConfig(name)
	if err != nil || len(raw) == 0 {
		return o, err
	}
	var cfg struct {
		KubeConfigFile string `json:"kubeConfigFile"`
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return o, fmt.Errorf("--admission-control-config-file: %s: %w", name, err)
	}
	if cfg.KubeConfigFile == "" {
		return o, nil
	}
	r, err := webhook.LoadAuthInfo(cfg.KubeConfigFile)
	if err != nil {
		return o, fmt.Errorf("--admission-control-config-file: %s: %w", name, err)
	}
	o.Clients = o.Clients.WithAuthInfo(r)
	return o, nil
}

// webhookOptions are shared by both webhook plugins: one client cache,
// one resolver, the namespace lister.
func (d *admissionDeps) webhookOptions() admwebhook.Options {
	if d.webhook != nil {
		return *d.webhook
	}
	resolver := d.serviceResolver
	if resolver == nil {
		resolver = &endpointResolver{}
		resolver.start(d.informers.client)
	}
	clients := webhook.NewClientManager(resolver, admissionWebhookTimeout)
	if d.config != nil {
		clients = clients.WithTransportWrapper(d.config.webhookTransport())
	}
	o := admwebhook.Options{
		Clients:    clients,
		Namespaces: d.informers.factory.Core().V1().Namespaces().Lister(),
		Scheme:     d.scheme,
		Authorizer: resourceAuthorizer(d),
		Metrics:    d.metrics.WebhookObserver(),
	}
	if d.storage != nil {
		o.GetNamespace = func(ctx context.Context, name string) (*corev1.Namespace, error) {
			return d.storage.getNamespace(ctx, name)
		}
		o.Mapper = newEquivalentMapper(d.scheme, d.storage.groups)
	}
	if d.config != nil {
		o.Logger = d.config.Logger
	}
	d.webhook = &o
	return o
}

// equivalentMapper finds the resources served from one storage in
// several groups or versions (events in core/v1 and events.k8s.io/v1,
// horizontalpodautoscalers in autoscaling/v1 and v2).
type equivalentMapper struct {
	scheme  *runtime.Scheme
	byStore map[rest.Storage][]schema.GroupVersionResource
	stores  map[schema.GroupVersionResource]map[string]rest.Storage // by subresource ("" = main)
}

func newEquivalentMapper(scheme *runtime.Scheme, groups []rest.APIGroupInfo) *equivalentMapper {
	m := &equivalentMapper{scheme: scheme, byStore: map[rest.Storage][]schema.GroupVersionResource{}, stores: map[schema.GroupVersionResource]map[string]rest.Storage{}}
	for _, g := range groups {
		for _, v := range g.Versions {
			for path, st := range g.Storage[v] {
				res, sub, _ := strings.Cut(path, "/")
				gvr := schema.GroupVersionResource{Group: g.Group, Version: v, Resource: res}
				if m.stores[gvr] == nil {
					m.stores[gvr] = map[string]rest.Storage{}
				}
				m.stores[gvr][sub] = st
				// Only pointer storages can be told apart by identity.
				if sub == "" && reflect.ValueOf(st).Kind() == reflect.Pointer {
					m.byStore[st] = append(m.byStore[st], gvr)
				}
			}
		}
	}
	return m
}

func (m *equivalentMapper) EquivalentResources(gvr schema.GroupVersionResource, sub string) []schema.GroupVersionResource {
	st := m.stores[gvr][""]
	if st == nil || reflect.ValueOf(st).Kind() != reflect.Pointer {
		return nil
	}
	var out []schema.GroupVersionResource
	for _, eq := range m.byStore[st] {
		if _, ok := m.stores[eq][sub]; ok {
			out = append(out, eq)
		}
	}
	return out
}

func (m *equivalentMapper) KindFor(gvr schema.GroupVersionResource, sub string) (schema.GroupVersionKind, bool) {
	st := m.stores[gvr][sub]
	if st == nil || m.scheme == nil {
		return schema.GroupVersionKind{}, false
	}
	kinds, _, err := m.scheme.ObjectKinds(st.New())
	if err != nil || len(kinds) == 0 {
		return schema.GroupVersionKind{}, false
	}
	for _, k := range kinds {
		if k.Group == gvr.Group {
			return gvr.GroupVersion().WithKind(k.Kind), true
		}
	}
	return kinds[0], true
}
