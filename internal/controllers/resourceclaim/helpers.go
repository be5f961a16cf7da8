package resourceclaim

import (
	"errors"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

var (
	// errClaimNotCreated: a template claim has no entry in the Pod's
	// status yet.
	errClaimNotCreated = errors.New("ResourceClaim not created yet")
	// errUnsupportedPodClaim: neither resourceClaimName nor
	// resourceClaimTemplateName is set (an API this code does not know).
	errUnsupportedPodClaim = errors.New("none of the supported fields are set")
)

// claimName is the name of the claim a Pod's claim entry refers to, as
// k8s.io/dynamic-resource-allocation's resourceclaim.Name: a named claim
// as is; a template's from status.resourceClaimStatuses, where a nil name
// means none was needed, and mustCheckOwner then says the claim must be
// controlled by the Pod.
func claimName(pod *corev1.Pod, podClaim *corev1.PodResourceClaim) (name *string, mustCheckOwner bool, err error) {
	switch {
	case podClaim.ResourceClaimName != nil:
		return podClaim.ResourceClaimName, false, nil
	case podClaim.ResourceClaimTemplateName != nil:
		for _, st := range pod.Status.ResourceClaimStatuses {
			if st.Name == podClaim.Name {
				return st.ResourceClaimName, true, nil
			}
		}
		return nil, false, fmt.Errorf("pod %q: %w", pod.Namespace+"/"+pod.Name, errClaimNotCreated)
	}
	return nil, false, fmt.Errorf("pod %q, spec.resourceClaim %q: %w", pod.Namespace+"/"+pod.Name, podClaim.Name, errUnsupportedPodClaim)
}

// isForPod: a generated claim is usable by the Pod only if the Pod
// controls it.
func isForPod(pod *corev1.Pod, claim *resourceapi.ResourceClaim) error {
	if claim.Namespace != pod.Namespace {
		return fmt.Errorf("ResourceClaim %s/%s is not in the same namespace as Pod %s/%s", claim.Namespace, claim.Name, pod.Namespace, pod.Name)
	}
	if !metav1.IsControlledBy(claim, pod) {
		return fmt.Errorf("ResourceClaim %s/%s was not created for Pod %s/%s (Pod is not owner)", claim.Namespace, claim.Name, pod.Namespace, pod.Name)
	}
	return nil
}

func isReservedForPod(pod *corev1.Pod, claim *resourceapi.ResourceClaim) bool {
	for _, r := range claim.Status.ReservedFor {
		if r.UID == pod.UID {
			return true
		}
	}
	return false
}

// isPodTerminal: Succeeded or Failed.
func isPodTerminal(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
}

// isPodDone: no container runs and none ever will — terminal, or
// deleted before it was scheduled.
func isPodDone(pod *corev1.Pod) bool {
	return isPodTerminal(pod) || pod.DeletionTimestamp != nil && pod.Spec.NodeName == ""
}

// podNeedsClaims is false once a Pod's reservations can go.
func podNeedsClaims(pod *corev1.Pod, deleted bool) bool {
	return !deleted && !isPodDone(pod)
}

// owningPod is the Pod that controls a claim, if any.
func owningPod(claim *resourceapi.ResourceClaim) (string, types.UID) {
	for _, o := range claim.OwnerReferences {
		if o.Controller != nil && *o.Controller && o.APIVersion == "v1" && o.Kind == "Pod" {
			return o.Name, o.UID
		}
	}
	return "", ""
}

// podClaimIndexFunc indexes a Pod by the claims (namespace/name) it
// uses; claims not created yet are left out.
func podClaimIndexFunc(obj any) ([]string, error) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return nil, nil
	}
	var keys []string
	for i := range pod.Spec.ResourceClaims {
		name, _, err := claimName(pod, &pod.Spec.ResourceClaims[i])
		if err != nil || name == nil {
			continue
		}
		keys = append(keys, pod.Namespace+"/"+*name)
	}
	return keys, nil
}

// claimOwnerIndexFunc indexes a claim by the UID of the Pod controlling
// it.
func claimOwnerIndexFunc(obj any) ([]string, error) {
	claim, ok := obj.(*resourceapi.ResourceClaim)
	if !ok {
		return nil, nil
	}
	if _, uid := owningPod(claim); uid != "" {
		return []string{string(uid)}, nil
	}
	return nil, nil
}

// uidSet remembers the last n UIDs added: the Pods known to be deleted,
// whose reservations can go without asking the server. It grows as UIDs
// come (an idle server deletes no Pod) up to n.
type uidSet struct {
	mu    sync.Mutex
	n     int
	set   map[types.UID]struct{}
	order []types.UID
	next  int
}

func newUIDSet(n int) *uidSet {
	return &uidSet{n: max(n, 1), set: map[types.UID]struct{}{}}
}

func (s *uidSet) add(uid types.UID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.set[uid]; ok {
		return
	}
	if len(s.order) < s.n {
		s.order = append(s.order, uid)
	} else {
		delete(s.set, s.order[s.next])
		s.order[s.next] = uid
		s.next = (s.next + 1) % len(s.order)
	}
	s.set[uid] = struct{}{}
}

func (s *uidSet) has(uid types.UID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.set[uid]
	return ok
}
