// Package nodetaint is the TaintNodesByCondition admission plugin: a new
// Node starts tainted node.kubernetes.io/not-ready:NoSchedule, so nothing
// is scheduled to it before its kubelet reports it ready and the node
// lifecycle controller lifts the taint.
package nodetaint

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kapi-dev/kapi/internal/admission"
)

// PluginName is the name used by --enable-admission-plugins.
const PluginName = "TaintNodesByCondition"

// Plugin is the TaintNodesByCondition admission plugin.
type Plugin struct{}

var _ admission.MutationInterface = Plugin{}

// Admit taints new nodes not-ready.
func (Plugin) Admit(_ context.Context, a *admission.Attributes) error {
	if a.Operation != admission.Create || a.Subresource != "" || a.Resource.Group != "" || a.Resource.Resource != "nodes" {
		return nil
	}
	node, ok := a.Object.(*corev1.Node)
	if !ok {
		return apierrors.NewBadRequest("Resource was marked with kind Node but was unable to be converted")
	}
	notReady := corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}
	for _, t := range node.Spec.Taints {
		if t.MatchTaint(&notReady) {
			return nil
		}
	}
	node.Spec.Taints = append(node.Spec.Taints, notReady)
	return nil
}
