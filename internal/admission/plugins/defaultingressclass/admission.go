// Package defaultingressclass is the DefaultIngressClass admission
// plugin: an Ingress created without a class gets the default
// IngressClass (annotated ingressclass.kubernetes.io/is-default-class:
// "true"); with several defaults, the newest wins, as upstream.
package defaultingressclass

import (
	"context"
	"sort"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	networkinglisters "k8s.io/client-go/listers/networking/v1"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/admission/plugins/forbidden"
	"github.com/kapi-dev/kapi/internal/admission/plugins/readiness"
)

// PluginName is the name used by --enable-admission-plugins.
const PluginName = "DefaultIngressClass"

// legacyClassAnnotation names a class the old way; an Ingress with it is
// left alone.
const legacyClassAnnotation = "kubernetes.io/ingress.class"

// Plugin defaults ingresses' class.
type Plugin struct {
	classes networkinglisters.IngressClassLister
	// Synced, when set, tells whether the classes' cache has listed; a
	// request waits for it as upstream's do.
	Synced func() bool
}

var _ admission.MutationInterface = (*Plugin)(nil)

// New reads ingress classes from classes.
func New(classes networkinglisters.IngressClassLister) *Plugin { return &Plugin{classes: classes} }

var ingresses = schema.GroupResource{Group: networkingv1.GroupName, Resource: "ingresses"}

// Admit sets spec.ingressClassName of a new Ingress that names no class.
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) error {
	if a.Operation != admission.Create || a.Resource.GroupResource() != ingresses || a.Subresource != "" {
		return nil
	}
	ing, ok := a.Object.(*networkingv1.Ingress)
	if !ok {
		return nil
	}
	if _, ok := ing.Annotations[legacyClassAnnotation]; ok || ing.Spec.IngressClassName != nil {
		return nil
	}
	if err := readiness.Wait(ctx, a, p.Synced); err != nil {
		return err
	}
	list, err := p.classes.List(labels.Everything())
	if err != nil {
		return forbidden.New(a, err)
	}
	var defaults []*networkingv1.IngressClass
	for _, c := range list {
		if c.Annotations[networkingv1.AnnotationIsDefaultIngressClass] == "true" {
			defaults = append(defaults, c)
		}
	}
	if len(defaults) == 0 {
		return nil
	}
	sort.Slice(defaults, func(i, j int) bool {
		ti, tj := defaults[i].CreationTimestamp.UnixNano(), defaults[j].CreationTimestamp.UnixNano()
		if ti == tj {
			return defaults[i].Name < defaults[j].Name
		}
		return ti > tj
	})
	name := defaults[0].Name
	ing.Spec.IngressClassName = &name
	return nil
}
