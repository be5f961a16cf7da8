package node

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// podsOn returns the pods bound to the node, from the index when there is one.
func (z *Authorizer) podsOn(nodeName string) []*corev1.Pod {
	if z.podIndex != nil {
		objs, err := z.podIndex.ByIndex(podsByNode, nodeName)
		if err == nil {
			out := make([]*corev1.Pod, 0, len(objs))
			for _, o := range objs {
				if p, ok := o.(*corev1.Pod); ok {
					out = append(out, p)
				}
			}
			return out
		}
	}
	all, err := z.pods.List(labels.Everything())
	if err != nil {
		return nil
	}
	return slices.DeleteFunc(all, func(p *corev1.Pod) bool { return p.Spec.NodeName != nodeName })
}

// anyPod reports whether some pod on the node in namespace satisfies f.
func (z *Authorizer) anyPod(nodeName, namespace string, f func(*corev1.Pod) bool) bool {
	return slices.ContainsFunc(z.podsOn(nodeName), func(p *corev1.Pod) bool {
		return p.Namespace == namespace && f(p)
	})
}

func (z *Authorizer) podOnNode(nodeName, namespace, name string) bool {
	p, err := z.pods.Pods(namespace).Get(name)
	return err == nil && p.Spec.NodeName == nodeName
}

func (z *Authorizer) podUsesSecret(nodeName, namespace, name string) bool {
	if z.anyPod(nodeName, namespace, func(p *corev1.Pod) bool {
		found := false
		PodSecretNames(p, func(n string) bool { found = n == name; return !found })
		return found
	}) {
		return true
	}
	// Secrets of the volumes the node mounts.
	return slices.ContainsFunc(z.volumesOn(nodeName), func(pv *corev1.PersistentVolume) bool {
		return slices.ContainsFunc(pvSecretRefs(pv), func(r *corev1.SecretReference) bool {
			return r != nil && r.Namespace == namespace && r.Name == name
		})
	})
}

func (z *Authorizer) podUsesConfigMap(nodeName, namespace, name string) bool {
	return z.anyPod(nodeName, namespace, func(p *corev1.Pod) bool {
		found := false
		PodConfigMapNames(p, func(n string) bool { found = n == name; return !found })
		return found
	})
}

func (z *Authorizer) nodeUsesClaim(nodeName, namespace, name string) bool {
	return z.anyPod(nodeName, namespace, func(p *corev1.Pod) bool { return slices.Contains(podClaimNames(p), name) })
}

func (z *Authorizer) nodeUsesResourceClaim(nodeName, namespace, name string) bool {
	return z.anyPod(nodeName, namespace, func(p *corev1.Pod) bool { return slices.Contains(podResourceClaimNames(p), name) })
}

func (z *Authorizer) nodeUsesAccount(nodeName, namespace, name string) bool {
	return z.anyPod(nodeName, namespace, func(p *corev1.Pod) bool { return p.Spec.ServiceAccountName == name })
}

func (z *Authorizer) nodeUsesVolume(nodeName, _, name string) bool {
	return slices.ContainsFunc(z.volumesOn(nodeName), func(pv *corev1.PersistentVolume) bool { return pv.Name == name })
}

// volumesOn returns the persistent volumes bound to the claims of the
// node's pods.
func (z *Authorizer) volumesOn(nodeName string) []*corev1.PersistentVolume {
	var out []*corev1.PersistentVolume
	for _, p := range z.podsOn(nodeName) {
		for _, claim := range podClaimNames(p) {
			out = append(out, z.volumesFor(p.Namespace, claim)...)
		}
	}
	return out
}

func (z *Authorizer) volumesFor(namespace, claim string) []*corev1.PersistentVolume {
	if z.pvIndex != nil {
		if objs, err := z.pvIndex.ByIndex(pvsByClaim, namespace+"/"+claim); err == nil {
			out := make([]*corev1.PersistentVolume, 0, len(objs))
			for _, o := range objs {
				if pv, ok := o.(*corev1.PersistentVolume); ok {
					out = append(out, pv)
				}
			}
			return out
		}
	}
	all, err := z.pvs.List(labels.Everything())
	if err != nil {
		return nil
	}
	return slices.DeleteFunc(all, func(pv *corev1.PersistentVolume) bool {
		r := pv.Spec.ClaimRef
		return r == nil || r.Namespace != namespace || r.Name != claim
	})
}
