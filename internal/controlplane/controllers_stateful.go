package controlplane

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/scale"

	"github.com/kapi-dev/kapi/internal/controllers/daemonset"
	"github.com/kapi-dev/kapi/internal/controllers/disruption"
	"github.com/kapi-dev/kapi/internal/controllers/statefulset"
)

func startStatefulSetController(ctx context.Context, cc *controllerContext) error {
	client, err := cc.client("statefulset-controller")
	if err != nil {
		return err
	}
	apps, core := cc.informers.factory.Apps().V1(), cc.informers.factory.Core().V1()
	c, err := statefulset.New(client, apps.StatefulSets(), core.Pods(), core.PersistentVolumeClaims(), apps.ControllerRevisions(),
		cc.recorder("statefulset-controller"), cc.clock, cc.logger)
	if err != nil {
		return err
	}
	cc.startInformers(ctx)
	go c.Run(ctx, statefulset.Workers)
	return nil
}

func startDaemonSetController(ctx context.Context, cc *controllerContext) error {
	client, err := cc.client("daemon-set-controller")
	if err != nil {
		return err
	}
	apps, core := cc.informers.factory.Apps().V1(), cc.informers.factory.Core().V1()
	c, err := daemonset.New(client, apps.DaemonSets(), core.Pods(), core.Nodes(), apps.ControllerRevisions(),
		cc.recorder("daemonset-controller"), cc.clock, cc.logger)
	if err != nil {
		return err
	}
	cc.startInformers(ctx)
	go c.Run(ctx, daemonset.Workers)
	return nil
}

func startDisruptionController(ctx context.Context, cc *controllerContext) error {
	client, err := cc.client("disruption-controller")
	if err != nil {
		return err
	}
	finder, err := scaleFinder(cc.loopback)
	if err != nil {
		return err
	}
	f := cc.informers.factory
	c, err := disruption.New(client, disruption.Informers{
		Pods: f.Core().V1().Pods(), PDBs: f.Policy().V1().PodDisruptionBudgets(),
		ReplicationControllers: f.Core().V1().ReplicationControllers(), ReplicaSets: f.Apps().V1().ReplicaSets(),
		Deployments: f.Apps().V1().Deployments(), StatefulSets: f.Apps().V1().StatefulSets(),
	}, finder, cc.recorder("disruption-controller"), cc.clock, cc.logger)
	if err != nil {
		return err
	}
	cc.startInformers(ctx)
	go c.Run(ctx)
	return nil
}

// scaleFinder reads the scale subresource of whatever kind a Pod's
// controller reference names (custom resources included), as the
// disruption controller's last finder does upstream.
func scaleFinder(loopback *rest.Config) (disruption.ScaleFinder, error) {
	cfg := rest.CopyConfig(loopback)
	cfg.UserAgent = "kapi/disruption-controller"
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	cached := memory.NewMemCacheClient(dc)
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(cached)
	scales, err := scale.NewForConfig(cfg, mapper, dynamic.LegacyAPIPathResolverFunc, scale.NewDiscoveryScaleKindResolver(cached))
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, ref *metav1.OwnerReference, ns string) (string, int32, bool, error) {
		gv, err := schema.ParseGroupVersion(ref.APIVersion)
		if err != nil {
			return "", 0, false, err
		}
		gk := schema.GroupKind{Group: gv.Group, Kind: ref.Kind}
		mapping, err := mapper.RESTMapping(gk, gv.Version)
		if meta.IsNoMatchError(err) {
			mapper.Reset() // a kind defined since discovery was cached
			mapping, err = mapper.RESTMapping(gk, gv.Version)
		}
		if err != nil {
			return "", 0, false, err
		}
		gr := mapping.Resource.GroupResource()
		s, err := scales.Scales(ns).Get(ctx, gr, ref.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			if ok, derr := implementsScale(dc, mapping.Resource); derr != nil || !ok {
				if derr != nil {
					return "", 0, false, derr
				}
				return "", 0, false, fmt.Errorf("%s does not implement the scale subresource", gr.String())
			}
			return "", 0, false, nil
		}
		if err != nil {
			return "", 0, false, err
		}
		if s.UID != ref.UID {
			return "", 0, false, nil
		}
		return string(s.UID), s.Spec.Replicas, true, nil
	}, nil
}

// implementsScale: discovery lists <resource>/scale of kind Scale.
func implementsScale(dc discovery.DiscoveryInterface, gvr schema.GroupVersionResource) (bool, error) {
	list, err := dc.ServerResourcesForGroupVersion(gvr.GroupVersion().String())
	if err != nil {
		return false, err
	}
	for _, r := range list.APIResources {
		if r.Name == gvr.Resource+"/scale" && r.Kind == "Scale" {
			return true, nil
		}
	}
	return false, nil
}
