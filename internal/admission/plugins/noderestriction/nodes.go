package noderestriction

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/kapi-dev/kapi/internal/admission"
)

// admitNode keeps a node to its own Node object, and away from the fields
// and labels that steer workloads: a node that could set them could attract
// pods meant for other nodes.
func admitNode(nodeName string, a *admission.Attributes) error {
	if a.Name != nodeName {
		return forbidden(a, fmt.Errorf("node %q is not allowed to modify node %q", nodeName, a.Name))
	}
	switch a.Operation {
	case admission.Create:
		n, ok := a.Object.(*corev1.Node)
		if !ok {
			return unexpectedType(a, a.Object)
		}
		if n.Spec.ConfigSource != nil {
			return forbidden(a, fmt.Errorf("node %q is not allowed to create pods with a non-nil configSource", nodeName))
		}
		if bad := forbiddenLabels(modifiedLabels(n.Labels, nil)); len(bad) > 0 {
			return forbidden(a, fmt.Errorf("node %q is not allowed to set the following labels: %s", nodeName, strings.Join(bad, ", ")))
		}
	case admission.Update:
		n, ok := a.Object.(*corev1.Node)
		if !ok {
			return unexpectedType(a, a.Object)
		}
		old, ok := a.OldObject.(*corev1.Node)
		if !ok {
			return unexpectedType(a, a.OldObject)
		}
		// Old kubelets may drop the field in a status update: only a new
		// non-nil value counts.
		if n.Spec.ConfigSource != nil && !equality.Semantic.DeepEqual(n.Spec.ConfigSource, old.Spec.ConfigSource) {
			return forbidden(a, fmt.Errorf("node %q is not allowed to update configSource to a new non-nil configSource", nodeName))
		}
		if !equality.Semantic.DeepEqual(n.Spec.Taints, old.Spec.Taints) {
			return forbidden(a, fmt.Errorf("node %q is not allowed to modify taints", nodeName))
		}
		if bad := forbiddenLabels(modifiedLabels(n.Labels, old.Labels)); len(bad) > 0 {
			return forbidden(a, fmt.Errorf("is not allowed to modify labels: %s", strings.Join(bad, ", ")))
		}
	}
	return nil
}

// modifiedLabels returns the keys added, removed or changed.
func modifiedLabels(a, b map[string]string) []string {
	var out []string
	for k, v := range a {
		if bv, ok := b[k]; !ok || bv != v {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	return out
}

func labelNamespace(key string) string {
	if i := strings.Index(key, "/"); i >= 0 {
		return key[:i]
	}
	return ""
}

func inNamespace(ns, domain string) bool { return ns == domain || strings.HasSuffix(ns, "."+domain) }

// isKubeletLabel: the labels a kubelet sets on its own Node.
func isKubeletLabel(key string) bool {
	switch key {
	case corev1.LabelHostname, corev1.LabelTopologyZone, corev1.LabelTopologyRegion,
		corev1.LabelFailureDomainBetaZone, corev1.LabelFailureDomainBetaRegion,
		corev1.LabelInstanceType, corev1.LabelInstanceTypeStable,
		corev1.LabelOSStable, corev1.LabelArchStable,
		"beta.kubernetes.io/os", "beta.kubernetes.io/arch":
		return true
	}
	ns := labelNamespace(key)
	return inNamespace(ns, "kubelet.kubernetes.io") || inNamespace(ns, "node.kubernetes.io")
}

// forbiddenLabels returns, sorted, the keys a node may not set: the
// node-restriction.kubernetes.io namespace, and kubernetes.io and k8s.io
// labels other than the kubelet's own.
func forbiddenLabels(keys []string) []string {
	var out []string
	for _, k := range keys {
		ns := labelNamespace(k)
		restricted := inNamespace(ns, corev1.LabelNamespaceNodeRestriction)
		kube := inNamespace(ns, "kubernetes.io") || inNamespace(ns, "k8s.io")
		if restricted || (kube && !isKubeletLabel(k)) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
