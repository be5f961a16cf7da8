package daemonset

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
)

// shouldRun is upstream's NodeShouldRunDaemonPod: run says a Pod belongs
// on node (name, node selector, required affinity, and NoSchedule and
// NoExecute taints tolerated, counting the default tolerations);
// keepRunning says an existing one may stay (only NoExecute taints
// matter then).
func shouldRun(node *corev1.Node, ds *appsv1.DaemonSet) (run, keepRunning bool) {
	if n := ds.Spec.Template.Spec.NodeName; n != "" && n != node.Name {
		return false, false
	}
	pod := &corev1.Pod{Spec: *ds.Spec.Template.Spec.DeepCopy(), ObjectMeta: *ds.Spec.Template.ObjectMeta.DeepCopy()}
	pod.Namespace = ds.Namespace
	pod.Spec.NodeName = node.Name
	addDefaultTolerations(&pod.Spec)
	if fits, _ := nodeaffinity.GetRequiredNodeAffinity(pod).Match(node); !fits {
		return false, false
	}
	logger := klog.Background()
	_, untolerated := corev1helpers.FindMatchingUntoleratedTaint(logger, node.Spec.Taints, pod.Spec.Tolerations, func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoExecute || t.Effect == corev1.TaintEffectNoSchedule
	}, false)
	if !untolerated {
		return true, true
	}
	_, untoleratedNoExecute := corev1helpers.FindMatchingUntoleratedTaint(logger, node.Spec.Taints, pod.Spec.Tolerations, func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoExecute
	}, false)
	return false, !untoleratedNoExecute
}
