package controllertest

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Created is when the fixture objects were created and became ready.
var Created = metav1.NewTime(time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC))

// WebPod is the Pod the endpoints controllers' tests serve: ns/name with
// UID uid-<name> and label app=web, Running on node-1 at ip, its
// container's port "http" 8080/TCP, Ready (or not) since Created, then
// changed by mutate.
func WebPod(name, ip string, ready bool, mutate ...func(*corev1.Pod)) *corev1.Pod {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID("uid-" + name), Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{
			NodeName:   "node-1",
			Containers: []corev1.Container{{Name: "c", Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}}},
		},
		Status: corev1.PodStatus{
			Phase:      corev1.PodRunning,
			PodIP:      ip,
			PodIPs:     []corev1.PodIP{{IP: ip}},
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: status, LastTransitionTime: Created}},
		},
	}
	for _, m := range mutate {
		m(p)
	}
	return p
}
