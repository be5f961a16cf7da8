package controlplane

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/admission/plugins/alwaysadmit"
	"github.com/kapi-dev/kapi/internal/admission/plugins/alwaysdeny"
	"github.com/kapi-dev/kapi/internal/admission/plugins/alwayspullimages"
	"github.com/kapi-dev/kapi/internal/admission/plugins/defaulttolerationseconds"
	"github.com/kapi-dev/kapi/internal/admission/plugins/limitranger"
	"github.com/kapi-dev/kapi/internal/admission/plugins/namespaceautoprovision"
	"github.com/kapi-dev/kapi/internal/admission/plugins/namespaceexists"
	"github.com/kapi-dev/kapi/internal/admission/plugins/nodetaint"
	"github.com/kapi-dev/kapi/internal/admission/plugins/podsecurity"
	"github.com/kapi-dev/kapi/internal/admission/plugins/podtopologylabels"
	"github.com/kapi-dev/kapi/internal/admission/plugins/priority"
	"github.com/kapi-dev/kapi/internal/admission/plugins/runtimeclass"
	"github.com/kapi-dev/kapi/internal/admission/plugins/serviceaccount"
)

// podAdmissionFactories are the built-in plugins that default and check
// pods (ServiceAccount, Priority, LimitRanger, PodSecurity, ...).
func podAdmissionFactories() map[string]admissionPluginFactory {
	return map[string]admissionPluginFactory{
		serviceaccount.PluginName: func(d *admissionDeps) (any, error) {
			live := &objectGetter{}
			live.bind(d.storage.groups)
			o := serviceaccount.Options{Get: live.GetServiceAccount}
			if d.informers != nil {
				o.Lister = d.informers.factory.Core().V1().ServiceAccounts().Lister()
			}
			return serviceaccount.New(o), nil
		},
		defaulttolerationseconds.PluginName: func(d *admissionDeps) (any, error) {
			pa := d.config.PodAdmission
			return defaulttolerationseconds.New(
				ptr.Deref(pa.DefaultNotReadyTolerationSeconds, defaulttolerationseconds.DefaultSeconds),
				ptr.Deref(pa.DefaultUnreachableTolerationSeconds, defaulttolerationseconds.DefaultSeconds)), nil
		},
		limitranger.PluginName: func(d *admissionDeps) (any, error) {
			if d.informers == nil {
				return nil, errNoInformers(limitranger.PluginName)
			}
			client := d.informers.client
			live := func(ctx context.Context, namespace string) ([]*corev1.LimitRange, error) {
				l, err := client.CoreV1().LimitRanges(namespace).List(ctx, metav1.ListOptions{})
				if err != nil {
					return nil, err
				}
				out := make([]*corev1.LimitRange, len(l.Items))
				for i := range l.Items {
					out[i] = &l.Items[i]
				}
				return out, nil
			}
			return limitranger.New(d.informers.factory.Core().V1().LimitRanges().Lister(), live, nil), nil
		},
		podsecurity.PluginName: newPodSecurity,
		podtopologylabels.PluginName: func(d *admissionDeps) (any, error) {
			if d.informers == nil {
				return nil, errNoInformers(podtopologylabels.PluginName)
			}
			inf := d.informers.factory.Core().V1().Nodes()
			return podtopologylabels.New(inf.Lister(), inf.Informer().HasSynced), nil
		},
		alwaysadmit.PluginName:      func(*admissionDeps) (any, error) { return alwaysadmit.Plugin{}, nil },
		alwaysdeny.PluginName:       func(*admissionDeps) (any, error) { return alwaysdeny.Plugin{}, nil },
		alwayspullimages.PluginName: func(*admissionDeps) (any, error) { return alwayspullimages.Plugin{}, nil },
		nodetaint.PluginName:        func(*admissionDeps) (any, error) { return nodetaint.Plugin{}, nil },
		namespaceexists.PluginName: func(d *admissionDeps) (any, error) {
			if d.informers == nil {
				return nil, errNoInformers(namespaceexists.PluginName)
			}
			return namespaceexists.New(cachedNamespaces(d)), nil
		},
		namespaceautoprovision.PluginName: func(d *admissionDeps) (any, error) {
			if d.informers == nil {
				return nil, errNoInformers(namespaceautoprovision.PluginName)
			}
			inf := d.informers.factory.Core().V1().Namespaces()
			client := d.informers.client
			return namespaceautoprovision.New(namespaceautoprovision.Options{
				Get: inf.Lister().Get, Synced: inf.Informer().HasSynced,
				Create: func(ctx context.Context, ns *corev1.Namespace) error {
					_, err := client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
					return err
				},
			}), nil
		},
		runtimeclass.PluginName: func(d *admissionDeps) (any, error) {
			if d.informers == nil {
				return nil, errNoInformers(runtimeclass.PluginName)
			}
			client := d.informers.client
			return runtimeclass.New(d.informers.factory.Node().V1().RuntimeClasses().Lister(),
				func(ctx context.Context, name string) (*nodev1.RuntimeClass, error) {
					return client.NodeV1().RuntimeClasses().Get(ctx, name, metav1.GetOptions{})
				}), nil
		},
		priority.PluginName: func(d *admissionDeps) (any, error) {
			if d.informers == nil {
				return nil, errNoInformers(priority.PluginName)
			}
			inf := d.informers.factory.Scheduling().V1().PriorityClasses()
			return priority.New(inf.Lister(), inf.Informer().HasSynced), nil
		},
	}
}

// errNoInformers refuses to build a plugin that reads through the shared
// informers when the chain was built without them.
func errNoInformers(plugin string) error {
	return fmt.Errorf("admission plugin %s needs the shared informers", plugin)
}

// PodAdmissionConfig configures the pod admission plugins; a nil field
// takes upstream's default.
type PodAdmissionConfig struct {
	// DefaultNotReadyTolerationSeconds and DefaultUnreachableTolerationSeconds
	// bound the NoExecute tolerations DefaultTolerationSeconds adds (300).
	DefaultNotReadyTolerationSeconds    *int64
	DefaultUnreachableTolerationSeconds *int64
}

// newPodSecurity builds PodSecurity from its configuration; namespaces
// are read from the informer's cache, then from storage (a namespace
// created a moment ago), and pods are listed live when a namespace's
// enforce level is tightened (rare enough not to keep every pod cached).
func newPodSecurity(d *admissionDeps) (any, error) {
	if d.informers == nil {
		return nil, errNoInformers(podsecurity.PluginName)
	}
	var raw []byte
	if d.pluginConfig != nil {
		var err error
		if raw, err = d.pluginConfig(podsecurity.PluginName); err != nil {
			return nil, err
		}
	}
	cfg, err := podsecurity.ParseConfig(raw)
	if err != nil {
		return nil, err
	}
	client := d.informers.client
	return podsecurity.New(podsecurity.Options{
		Config:       cfg,
		GetNamespace: cachedNamespaces(d),
		ListPods: func(ctx context.Context, namespace string) ([]*corev1.Pod, error) {
			l, err := client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
			if err != nil {
				return nil, err
			}
			out := make([]*corev1.Pod, len(l.Items))
			for i := range l.Items {
				out[i] = &l.Items[i]
			}
			return out, nil
		},
	}), nil
}

// cachedNamespaces reads a namespace from the shared informer's cache,
// then from storage (a namespace created a moment ago).
func cachedNamespaces(d *admissionDeps) func(ctx context.Context, name string) (*corev1.Namespace, error) {
	namespaces := d.informers.factory.Core().V1().Namespaces().Lister()
	return func(ctx context.Context, name string) (*corev1.Namespace, error) {
		if ns, err := namespaces.Get(name); err == nil {
			return ns, nil
		}
		return d.storage.getNamespace(ctx, name)
	}
}
