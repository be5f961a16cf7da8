package statefulset

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// retention is the set's persistentVolumeClaimRetentionPolicy with
// Retain for what is unset.
func retention(set *appsv1.StatefulSet) (whenDeleted, whenScaled appsv1.PersistentVolumeClaimRetentionPolicyType) {
	whenDeleted, whenScaled = appsv1.RetainPersistentVolumeClaimRetentionPolicyType, appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	if p := set.Spec.PersistentVolumeClaimRetentionPolicy; p != nil {
		if p.WhenDeleted != "" {
			whenDeleted = p.WhenDeleted
		}
		if p.WhenScaled != "" {
			whenScaled = p.WhenScaled
		}
	}
	return whenDeleted, whenScaled
}

// wantClaimOwners says which of set and pod should own claim under the
// retention policy, as upstream: the set when claims go with the set
// (and, under whenScaled=Delete, while the Pod is in range), the Pod
// when claims go with a scaled-down Pod.
func wantClaimOwners(set *appsv1.StatefulSet, pod *corev1.Pod) (bySet, byPod bool) {
	const del = appsv1.DeletePersistentVolumeClaimRetentionPolicyType
	whenDeleted, whenScaled := retention(set)
	scaledDown := !inOrdinalRange(pod, set)
	switch {
	case whenScaled != del && whenDeleted == del:
		return true, false
	case whenScaled == del && whenDeleted != del:
		return false, scaledDown
	case whenScaled == del && whenDeleted == del:
		return !scaledDown, scaledDown
	}
	return false, false
}

// staleRef: claim refers to set or pod by name but with another UID, so
// an earlier incarnation manages it and it is left alone, as upstream.
func staleRef(claim *corev1.PersistentVolumeClaim, set *appsv1.StatefulSet, pod *corev1.Pod) bool {
	for i := range claim.OwnerReferences {
		r := &claim.OwnerReferences[i]
		if namesSame(r, set, setKind) && r.UID != set.UID {
			return true
		}
		if namesSame(r, pod, podKind) && r.UID != pod.UID {
			return true
		}
	}
	return false
}

// otherController: something besides set and pod controls claim.
func otherController(claim *corev1.PersistentVolumeClaim, set *appsv1.StatefulSet, pod *corev1.Pod) bool {
	ref := metav1.GetControllerOf(claim)
	return ref != nil && ref.UID != set.UID && ref.UID != pod.UID
}

// fixClaimOwners rewrites claim's references to set and pod to what the
// retention policy wants, as controller references; it reports whether
// anything changed. A claim another controller owns only loses set's and
// pod's references.
func fixClaimOwners(claim *corev1.PersistentVolumeClaim, set *appsv1.StatefulSet, pod *corev1.Pod) bool {
	if staleRef(claim, set, pod) {
		return false
	}
	var refs []metav1.OwnerReference
	for _, r := range claim.OwnerReferences {
		if r.UID != set.UID && r.UID != pod.UID {
			refs = append(refs, r)
		}
	}
	if !otherController(claim, set, pod) {
		bySet, byPod := wantClaimOwners(set, pod)
		if bySet {
			refs = append(refs, *metav1.NewControllerRef(set, setKind))
		}
		if byPod && pod.UID != "" {
			refs = append(refs, *metav1.NewControllerRef(pod, podKind))
		}
	}
	if sameRefs(refs, claim.OwnerReferences) {
		return false
	}
	claim.OwnerReferences = refs
	return true
}

func sameRefs(a, b []metav1.OwnerReference) bool {
	if len(a) != len(b) {
		return false
	}
	for _, r := range a {
		found := false
		for _, s := range b {
			if r.UID == s.UID && (r.Controller != nil && *r.Controller) == (s.Controller != nil && *s.Controller) {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}
