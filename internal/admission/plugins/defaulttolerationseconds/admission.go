// Package defaulttolerationseconds is the DefaultTolerationSeconds
// admission plugin: a pod that does not tolerate the not-ready and
// unreachable NoExecute taints gets tolerations for them bounded in time
// (300 s unless configured), so it is evicted from a lost node after that.
package defaulttolerationseconds

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kapi-dev/kapi/internal/admission"
)

// PluginName is the name used by --enable-admission-plugins.
const PluginName = "DefaultTolerationSeconds"

// DefaultSeconds is the flags' default.
const DefaultSeconds int64 = 300

// Plugin is the DefaultTolerationSeconds admission plugin.
type Plugin struct {
	notReady, unreachable corev1.Toleration
}

var _ admission.MutationInterface = (*Plugin)(nil)

// New returns the plugin with the tolerations' seconds
// (--default-not-ready-toleration-seconds,
// --default-unreachable-toleration-seconds).
func New(notReadySeconds, unreachableSeconds int64) *Plugin {
	toleration := func(key string, seconds int64) corev1.Toleration {
		return corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &seconds}
	}
	return &Plugin{
		notReady:    toleration(corev1.TaintNodeNotReady, notReadySeconds),
		unreachable: toleration(corev1.TaintNodeUnreachable, unreachableSeconds),
	}
}

// Admit adds the tolerations a pod (created or updated) lacks. A
// toleration with an empty key or effect covers the taint too.
func (p *Plugin) Admit(_ context.Context, a *admission.Attributes) error {
	if a.Resource.Group != "" || a.Resource.Resource != "pods" || a.Subresource != "" {
		return nil
	}
	if a.Operation != admission.Create && a.Operation != admission.Update {
		return nil
	}
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		return apierrors.NewBadRequest(fmt.Sprintf("expected *api.Pod but got %T", a.Object))
	}
	var notReady, unreachable bool
	for _, t := range pod.Spec.Tolerations {
		noExecute := t.Effect == corev1.TaintEffectNoExecute || t.Effect == ""
		notReady = notReady || (noExecute && (t.Key == corev1.TaintNodeNotReady || t.Key == ""))
		unreachable = unreachable || (noExecute && (t.Key == corev1.TaintNodeUnreachable || t.Key == ""))
	}
	if !notReady {
		pod.Spec.Tolerations = append(pod.Spec.Tolerations, copyToleration(p.notReady))
	}
	if !unreachable {
		pod.Spec.Tolerations = append(pod.Spec.Tolerations, copyToleration(p.unreachable))
	}
	return nil
}

// copyToleration gives each pod its own seconds pointer.
func copyToleration(t corev1.Toleration) corev1.Toleration {
	s := *t.TolerationSeconds
	t.TolerationSeconds = &s
	return t
}
