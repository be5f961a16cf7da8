package noderestriction

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/auth/authorizer/node"
)

func (p *Plugin) admitPod(ctx context.Context, nodeName string, a *admission.Attributes) error {
	switch a.Operation {
	case admission.Create:
		return admitMirrorPod(nodeName, a)
	case admission.Delete:
		// kapi hands the object being deleted to admission; read it only
		// when it is missing.
		pod, ok := a.OldObject.(*corev1.Pod)
		if !ok {
			var err error
			pod, err = p.getPod(ctx, a.Namespace, a.Name)
			if apierrors.IsNotFound(err) {
				return err
			}
			if err != nil {
				return forbidden(a, err)
			}
		}
		if pod.Spec.NodeName != nodeName {
			return forbidden(a, fmt.Errorf("node %q can only delete pods with spec.nodeName set to itself", nodeName))
		}
		return nil
	}
	return forbidden(a, fmt.Errorf("unexpected operation %q, node %q can only create and delete mirror pods", a.Operation, nodeName))
}

// admitMirrorPod lets a node create only mirror pods of its static pods:
// bound to itself, owned by its Node, and referring to no other API
// objects it could use to reach data it may not read.
func admitMirrorPod(nodeName string, a *admission.Attributes) error {
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		return unexpectedType(a, a.Object)
	}
	if _, isMirror := pod.Annotations[corev1.MirrorPodAnnotationKey]; !isMirror {
		return forbidden(a, fmt.Errorf("pod does not have %q annotation, node %q can only create mirror pods", corev1.MirrorPodAnnotationKey, nodeName))
	}
	if pod.Spec.NodeName != nodeName {
		return forbidden(a, fmt.Errorf("node %q can only create pods with spec.nodeName set to itself", nodeName))
	}
	switch len(pod.OwnerReferences) {
	case 0:
		return forbidden(a, fmt.Errorf("node %q can only create pods with an owner reference set to itself", nodeName))
	case 1:
	default:
		return forbidden(a, fmt.Errorf("node %q can only create pods with a single owner reference set to itself", nodeName))
	}
	owner := pod.OwnerReferences[0]
	if owner.APIVersion != "v1" || owner.Kind != "Node" || owner.Name != nodeName {
		return forbidden(a, fmt.Errorf("node %q can only create pods with an owner reference set to itself", nodeName))
	}
	if owner.Controller == nil || !*owner.Controller {
		return forbidden(a, fmt.Errorf("node %q can only create pods with a controller owner reference set to itself", nodeName))
	}
	if owner.BlockOwnerDeletion != nil && *owner.BlockOwnerDeletion {
		return forbidden(a, fmt.Errorf("node %q must not set blockOwnerDeletion on an owner reference", nodeName))
	}
	if pod.Spec.ServiceAccountName != "" {
		return forbidden(a, fmt.Errorf("node %q can not create pods that reference a service account", nodeName))
	}
	hasSecret, hasConfigMap := false, false
	node.PodSecretNames(pod, func(string) bool { hasSecret = true; return false })
	if hasSecret {
		return forbidden(a, fmt.Errorf("node %q can not create pods that reference secrets", nodeName))
	}
	node.PodConfigMapNames(pod, func(string) bool { hasConfigMap = true; return false })
	if hasConfigMap {
		return forbidden(a, fmt.Errorf("node %q can not create pods that reference configmaps", nodeName))
	}
	for _, v := range pod.Spec.Volumes {
		if v.Projected == nil {
			continue
		}
		for _, src := range v.Projected.Sources {
			if src.ClusterTrustBundle != nil {
				return forbidden(a, fmt.Errorf("node %q can not create pods that use clustertrustbundles", nodeName))
			}
			if src.PodCertificate != nil {
				return forbidden(a, fmt.Errorf("node %q can not create pods that use podcertificate projected volumes", nodeName))
			}
		}
	}
	for _, v := range pod.Spec.Volumes {
		if v.PersistentVolumeClaim != nil {
			return forbidden(a, fmt.Errorf("node %q can not create pods that reference persistentvolumeclaims", nodeName))
		}
	}
	if len(pod.Spec.ResourceClaims) > 0 {
		return forbidden(a, fmt.Errorf("node %q can not create pods that reference resourceclaims", nodeName))
	}
	return nil
}

func admitPodStatus(nodeName string, a *admission.Attributes) error {
	if a.Operation != admission.Update {
		return forbidden(a, fmt.Errorf("unexpected operation %q", a.Operation))
	}
	oldPod, ok := a.OldObject.(*corev1.Pod)
	if !ok {
		return unexpectedType(a, a.OldObject)
	}
	if oldPod.Spec.NodeName != nodeName {
		return forbidden(a, fmt.Errorf("node %q can only update pod status for pods with spec.nodeName set to itself", nodeName))
	}
	newPod, ok := a.Object.(*corev1.Pod)
	if !ok {
		return unexpectedType(a, a.Object)
	}
	if !labels.Equals(oldPod.Labels, newPod.Labels) {
		return forbidden(a, fmt.Errorf("node %q cannot update labels through pod status", nodeName))
	}
	// Claim statuses decide which claims the node may read.
	if !equality.Semantic.DeepEqual(oldPod.Status.ResourceClaimStatuses, newPod.Status.ResourceClaimStatuses) {
		return forbidden(a, fmt.Errorf("node %q cannot update resource claim statues", nodeName))
	}
	return nil
}
