// Package podtopologylabels is the PodTopologyLabels admission plugin: a
// pod bound to a node (through pods/binding, or created with
// spec.nodeName) gets the node's topology.kubernetes.io/zone and region
// labels, so the downward API can expose them to the pod.
package podtopologylabels

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	corev1listers "k8s.io/client-go/listers/core/v1"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/admission/plugins/internal/podutil"
)

// PluginName is the name used by --enable-admission-plugins.
const PluginName = "PodTopologyLabels"

// Labels are the node labels copied to pods.
var Labels = []string{corev1.LabelTopologyZone, corev1.LabelTopologyRegion}

// Plugin is the PodTopologyLabels admission plugin.
type Plugin struct {
	nodes  corev1listers.NodeLister
	synced func() bool
}

var _ admission.MutationInterface = (*Plugin)(nil)

// New returns the plugin over the shared node lister.
func New(nodes corev1listers.NodeLister, synced func() bool) *Plugin {
	return &Plugin{nodes: nodes, synced: synced}
}

// Admit copies the topology labels on pod creation and binding.
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) error {
	if a.Operation != admission.Create || a.Resource.Group != "" || a.Resource.Resource != "pods" {
		return nil
	}
	var nodeName string
	var target *map[string]string
	switch a.Subresource {
	case "":
		pod, ok := a.Object.(*corev1.Pod)
		if !ok {
			return fmt.Errorf("expected Pod but got %T", a.Object)
		}
		nodeName, target = pod.Spec.NodeName, &pod.Labels
	case "binding":
		b, ok := a.Object.(*corev1.Binding)
		if !ok {
			return fmt.Errorf("expected Binding but got %s", a.Kind.Kind)
		}
		if b.Target.Kind != "Node" {
			return nil
		}
		nodeName, target = b.Target.Name, &b.Labels
	default:
		return nil
	}
	if !podutil.WaitReady(ctx, p.synced) {
		return podutil.Forbidden(a, errors.New("not yet ready to handle request"))
	}
	if nodeName == "" {
		return nil
	}
	node, err := p.nodes.Get(nodeName)
	if apierrors.IsNotFound(err) {
		return nil // an unknown node changes nothing, as upstream
	}
	if err != nil {
		return err
	}
	for _, k := range Labels {
		if v, ok := node.Labels[k]; ok {
			if *target == nil {
				*target = map[string]string{}
			}
			(*target)[k] = v
		}
	}
	return nil
}
