package statefulset

import (
	"fmt"
	"regexp"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/controllers/podcontrol"
)

// This file holds what is special to a StatefulSet's Pods: ordinals,
// names, identity labels and claims; what any workload controller asks
// of a Pod is in podcontrol.

var (
	setKind = appsv1.SchemeGroupVersion.WithKind("StatefulSet")
	podKind = corev1.SchemeGroupVersion.WithKind("Pod")
)

// ordinalRE is the trailing -<n> of a set's Pod name.
var ordinalRE = regexp.MustCompile(`^(.*)-([0-9]+)$`)

// parentAndOrdinal splits <set>-<i>; -1 when the name has no ordinal.
func parentAndOrdinal(pod *corev1.Pod) (string, int) {
	m := ordinalRE.FindStringSubmatch(pod.Name)
	if m == nil {
		return "", -1
	}
	i, err := strconv.ParseInt(m[2], 10, 32)
	if err != nil {
		return "", -1
	}
	return m[1], int(i)
}

func ordinalOf(pod *corev1.Pod) int {
	_, i := parentAndOrdinal(pod)
	return i
}

func podName(set *appsv1.StatefulSet, ordinal int) string {
	return fmt.Sprintf("%s-%d", set.Name, ordinal)
}

func claimName(set *appsv1.StatefulSet, claim *corev1.PersistentVolumeClaim, ordinal int) string {
	return fmt.Sprintf("%s-%s-%d", claim.Name, set.Name, ordinal)
}

// startOrdinal is spec.ordinals.start, 0 when unset.
func startOrdinal(set *appsv1.StatefulSet) int {
	if set.Spec.Ordinals != nil {
		return int(set.Spec.Ordinals.Start)
	}
	return 0
}

func replicasOf(set *appsv1.StatefulSet) int {
	if set.Spec.Replicas == nil {
		return 1
	}
	return int(*set.Spec.Replicas)
}

// inOrdinalRange: the Pod's ordinal is one the set wants now.
func inOrdinalRange(pod *corev1.Pod, set *appsv1.StatefulSet) bool {
	o := ordinalOf(pod)
	return o >= startOrdinal(set) && o < startOrdinal(set)+replicasOf(set)
}

// isMember: pod is named as one of set's Pods.
func isMember(set *appsv1.StatefulSet, pod *corev1.Pod) bool {
	parent, _ := parentAndOrdinal(pod)
	return parent == set.Name
}

// claimsFor are the PVCs pod's ordinal gets from the set's templates,
// keyed by template name, labelled with the selector's matchLabels.
func claimsFor(set *appsv1.StatefulSet, ordinal int) map[string]corev1.PersistentVolumeClaim {
	out := make(map[string]corev1.PersistentVolumeClaim, len(set.Spec.VolumeClaimTemplates))
	for i := range set.Spec.VolumeClaimTemplates {
		t := &set.Spec.VolumeClaimTemplates[i]
		c := t.DeepCopy()
		c.Name = claimName(set, t, ordinal)
		c.Namespace = set.Namespace
		if c.Labels == nil {
			c.Labels = map[string]string{}
		}
		if set.Spec.Selector != nil {
			for k, v := range set.Spec.Selector.MatchLabels {
				c.Labels[k] = v
			}
		}
		out[t.Name] = *c
	}
	return out
}

// newPod is ordinal's Pod from set's template: the identity labels,
// hostname and subdomain, and one volume per claim template replacing a
// template volume of the same name.
func newPod(set *appsv1.StatefulSet, ordinal int, revision string) *corev1.Pod {
	t := set.Spec.Template.DeepCopy()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:            podName(set, ordinal),
			Namespace:       set.Namespace,
			Labels:          t.Labels,
			Annotations:     t.Annotations,
			Finalizers:      t.Finalizers,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(set, setKind)},
		},
		Spec: t.Spec,
	}
	setIdentity(pod, ordinal)
	pod.Spec.Hostname = pod.Name
	pod.Spec.Subdomain = set.Spec.ServiceName
	claims := claimsFor(set, ordinal)
	var vols []corev1.Volume
	for i := range set.Spec.VolumeClaimTemplates {
		name := set.Spec.VolumeClaimTemplates[i].Name
		vols = append(vols, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claims[name].Name}}})
	}
	for _, v := range pod.Spec.Volumes {
		if _, taken := claims[v.Name]; !taken {
			vols = append(vols, v)
		}
	}
	pod.Spec.Volumes = vols
	pod.Labels[appsv1.StatefulSetRevisionLabel] = revision
	return pod
}

// setIdentity puts the pod-name and pod-index labels.
func setIdentity(pod *corev1.Pod, ordinal int) {
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels[appsv1.StatefulSetPodNameLabel] = pod.Name
	pod.Labels[appsv1.PodIndexLabel] = strconv.Itoa(ordinal)
}

func identityMatches(pod *corev1.Pod) bool {
	return pod.Labels[appsv1.StatefulSetPodNameLabel] == pod.Name &&
		pod.Labels[appsv1.PodIndexLabel] == strconv.Itoa(ordinalOf(pod))
}

func revisionOf(pod *corev1.Pod) string { return pod.Labels[appsv1.StatefulSetRevisionLabel] }

func isCreated(pod *corev1.Pod) bool     { return pod.Status.Phase != "" }
func isFailed(pod *corev1.Pod) bool      { return pod.Status.Phase == corev1.PodFailed }
func isSucceeded(pod *corev1.Pod) bool   { return pod.Status.Phase == corev1.PodSucceeded }
func isTerminating(pod *corev1.Pod) bool { return pod.DeletionTimestamp != nil }

func isRunningAndReady(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodRunning && podcontrol.IsReady(pod)
}

func isHealthy(pod *corev1.Pod) bool { return isRunningAndReady(pod) && !isTerminating(pod) }

// refersTo reports whether refs hold a reference to obj's UID.
func refersTo(refs []metav1.OwnerReference, obj metav1.Object) bool {
	for _, r := range refs {
		if r.UID == obj.GetUID() {
			return true
		}
	}
	return false
}

// namesSame: ref points at obj's kind and name (any UID).
func namesSame(ref *metav1.OwnerReference, obj metav1.Object, gvk schema.GroupVersionKind) bool {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	return err == nil && gv.Group == gvk.Group && ref.Kind == gvk.Kind && ref.Name == obj.GetName()
}
