package replicaset

import (
	"context"
	"log/slog"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
)

// GVKs of the two owner kinds.
var (
	ReplicaSetKind            = metav1.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"}
	ReplicationControllerKind = metav1.GroupVersionKind{Version: "v1", Kind: "ReplicationController"}
)

// NewReplicaSet is the replicaset controller.
func NewReplicaSet(client kubernetes.Interface, rss appsinformers.ReplicaSetInformer, pods coreinformers.PodInformer, recorder events.EventRecorder, clk clock.Clock, logger *slog.Logger) (*Controller, error) {
	lister := rss.Lister()
	k := kind{
		gvk:         ReplicaSetKind,
		terminating: true,
		list:        func(ns string) ([]*appsv1.ReplicaSet, error) { return lister.ReplicaSets(ns).List(everything) },
		get:         func(ns, name string) (*appsv1.ReplicaSet, error) { return lister.ReplicaSets(ns).Get(name) },
		getFresh: func(ctx context.Context, ns, name string) (*appsv1.ReplicaSet, error) {
			return client.AppsV1().ReplicaSets(ns).Get(ctx, name, metav1.GetOptions{})
		},
		updateStatus: func(ctx context.Context, rs *appsv1.ReplicaSet) (*appsv1.ReplicaSet, error) {
			return client.AppsV1().ReplicaSets(rs.Namespace).UpdateStatus(ctx, rs, metav1.UpdateOptions{})
		},
		original: func(rs *appsv1.ReplicaSet) ownerObject { return withKind(rs) },
	}
	return newController(k, rss.Informer(), client, pods, recorder, clk, logger, "replicaset")
}

// withKind sets the TypeMeta events need to reference the object.
func withKind(rs *appsv1.ReplicaSet) *appsv1.ReplicaSet {
	if rs.Kind != "" {
		return rs
	}
	rs = rs.DeepCopy()
	rs.APIVersion, rs.Kind = "apps/v1", "ReplicaSet"
	return rs
}

// NewReplicationController is the replicationcontroller controller.
func NewReplicationController(client kubernetes.Interface, rcs coreinformers.ReplicationControllerInformer, pods coreinformers.PodInformer, recorder events.EventRecorder, clk clock.Clock, logger *slog.Logger) (*Controller, error) {
	lister := rcs.Lister()
	k := kind{
		gvk: ReplicationControllerKind,
		list: func(ns string) ([]*appsv1.ReplicaSet, error) {
			list, err := lister.ReplicationControllers(ns).List(everything)
			out := make([]*appsv1.ReplicaSet, len(list))
			for i, rc := range list {
				out[i] = rsFromRC(rc)
			}
			return out, err
		},
		get: func(ns, name string) (*appsv1.ReplicaSet, error) {
			rc, err := lister.ReplicationControllers(ns).Get(name)
			if err != nil {
				return nil, err
			}
			return rsFromRC(rc), nil
		},
		getFresh: func(ctx context.Context, ns, name string) (*appsv1.ReplicaSet, error) {
			rc, err := client.CoreV1().ReplicationControllers(ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return nil, err
			}
			return rsFromRC(rc), nil
		},
		updateStatus: func(ctx context.Context, rs *appsv1.ReplicaSet) (*appsv1.ReplicaSet, error) {
			rc, err := client.CoreV1().ReplicationControllers(rs.Namespace).UpdateStatus(ctx, rcFromRS(rs), metav1.UpdateOptions{})
			if err != nil {
				return nil, err
			}
			return rsFromRC(rc), nil
		},
		original: func(rs *appsv1.ReplicaSet) ownerObject { return rcFromRS(rs) },
	}
	return newController(k, rcs.Informer(), client, pods, recorder, clk, logger, "replicationmanager")
}

// rsFromRC converts an RC: its selector map becomes matchLabels.
func rsFromRC(rc *corev1.ReplicationController) *appsv1.ReplicaSet {
	rs := &appsv1.ReplicaSet{
		ObjectMeta: *rc.ObjectMeta.DeepCopy(),
		Spec: appsv1.ReplicaSetSpec{
			Replicas:        rc.Spec.Replicas,
			MinReadySeconds: rc.Spec.MinReadySeconds,
			Selector:        &metav1.LabelSelector{MatchLabels: rc.Spec.Selector},
		},
		Status: appsv1.ReplicaSetStatus{
			Replicas: rc.Status.Replicas, FullyLabeledReplicas: rc.Status.FullyLabeledReplicas,
			ReadyReplicas: rc.Status.ReadyReplicas, AvailableReplicas: rc.Status.AvailableReplicas,
			ObservedGeneration: rc.Status.ObservedGeneration,
		},
	}
	if rc.Spec.Template != nil {
		rs.Spec.Template = *rc.Spec.Template.DeepCopy()
	}
	for _, c := range rc.Status.Conditions {
		rs.Status.Conditions = append(rs.Status.Conditions, appsv1.ReplicaSetCondition{
			Type: appsv1.ReplicaSetConditionType(c.Type), Status: c.Status,
			LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message,
		})
	}
	return rs
}

// rcFromRS converts back (an RC has no terminatingReplicas).
func rcFromRS(rs *appsv1.ReplicaSet) *corev1.ReplicationController {
	template := rs.Spec.Template.DeepCopy()
	rc := &corev1.ReplicationController{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ReplicationController"},
		ObjectMeta: *rs.ObjectMeta.DeepCopy(),
		Spec: corev1.ReplicationControllerSpec{
			Replicas: rs.Spec.Replicas, MinReadySeconds: rs.Spec.MinReadySeconds,
			Selector: rs.Spec.Selector.MatchLabels, Template: template,
		},
		Status: corev1.ReplicationControllerStatus{
			Replicas: rs.Status.Replicas, FullyLabeledReplicas: rs.Status.FullyLabeledReplicas,
			ReadyReplicas: rs.Status.ReadyReplicas, AvailableReplicas: rs.Status.AvailableReplicas,
			ObservedGeneration: rs.Status.ObservedGeneration,
		},
	}
	for _, c := range rs.Status.Conditions {
		rc.Status.Conditions = append(rc.Status.Conditions, corev1.ReplicationControllerCondition{
			Type: corev1.ReplicationControllerConditionType(c.Type), Status: c.Status,
			LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message,
		})
	}
	return rc
}
