// Package v1 holds kapi's own scheme functions for the core/v1 API group:
// the defaulting functions and the field-label conversions that
// kube-apiserver registers for the k8s.io/api core/v1 types. There are no
// internal types in kapi, so nothing here converts between versions.
package v1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// RegisterDefaults adds the defaulting functions of the core/v1 types kapi
// serves to scheme. Each kind's list gets the same defaults per item, as
// the generated upstream defaulters do. Pods and services are added with
// their resources.
func RegisterDefaults(scheme *runtime.Scheme) error {
	scheme.AddTypeDefaultingFunc(&corev1.ConfigMap{}, func(obj any) { SetDefaultsConfigMap(obj.(*corev1.ConfigMap)) })
	scheme.AddTypeDefaultingFunc(&corev1.ConfigMapList{}, func(obj any) {
		for i := range obj.(*corev1.ConfigMapList).Items {
			SetDefaultsConfigMap(&obj.(*corev1.ConfigMapList).Items[i])
		}
	})
	scheme.AddTypeDefaultingFunc(&corev1.Secret{}, func(obj any) { SetDefaultsSecret(obj.(*corev1.Secret)) })
	scheme.AddTypeDefaultingFunc(&corev1.SecretList{}, func(obj any) {
		for i := range obj.(*corev1.SecretList).Items {
			SetDefaultsSecret(&obj.(*corev1.SecretList).Items[i])
		}
	})
	scheme.AddTypeDefaultingFunc(&corev1.Namespace{}, func(obj any) { SetDefaultsNamespace(obj.(*corev1.Namespace)) })
	scheme.AddTypeDefaultingFunc(&corev1.NamespaceList{}, func(obj any) {
		for i := range obj.(*corev1.NamespaceList).Items {
			SetDefaultsNamespace(&obj.(*corev1.NamespaceList).Items[i])
		}
	})
	registerServiceDefaults(scheme)
	registerPodDefaults(scheme)
	registerOtherDefaults(scheme)
	return nil
}

// SetDefaultsConfigMap gives a config map an empty data map, as upstream
// does; it is invisible on the wire but keeps the object the same after a
// round trip through kube-apiserver's defaulting.
func SetDefaultsConfigMap(cm *corev1.ConfigMap) {
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
}

// SetDefaultsSecret makes an untyped secret Opaque.
func SetDefaultsSecret(s *corev1.Secret) {
	if s.Type == "" {
		s.Type = corev1.SecretTypeOpaque
	}
}

// SetDefaultsNamespace labels a named namespace with
// kubernetes.io/metadata.name=<name> and makes an empty phase Active. A
// namespace created with generateName has no name yet; its label is set by
// the namespace strategy once the name is known.
func SetDefaultsNamespace(ns *corev1.Namespace) {
	if ns.Name != "" {
		if ns.Labels == nil {
			ns.Labels = map[string]string{}
		}
		ns.Labels[corev1.LabelMetadataName] = ns.Name
	}
	if ns.Status.Phase == "" {
		ns.Status.Phase = corev1.NamespaceActive
	}
}
