package e2e

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func newConfigMap(name string, kv ...string) *corev1.ConfigMap {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{}}
	for i := 0; i+1 < len(kv); i += 2 {
		cm.Data[kv[i]] = kv[i+1]
	}
	return cm
}

// rootCAConfigMap is the ConfigMap kapi's root-ca-certificate-publisher
// controller keeps in every namespace, as kube-controller-manager does.
// Tests that account for their own ConfigMaps leave it out.
const rootCAConfigMap = "kube-root-ca.crt"

// ownConfigMaps counts the ConfigMaps a test wrote: all but the root CA.
func ownConfigMaps[T any](items []T, name func(T) string) int {
	n := 0
	for _, it := range items {
		if name(it) != rootCAConfigMap {
			n++
		}
	}
	return n
}

func configMapName(cm corev1.ConfigMap) string { return cm.Name }
