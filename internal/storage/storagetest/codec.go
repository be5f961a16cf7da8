// Package storagetest is the conformance suite every storage.Backend runs
// (memory, etcd3, later the watch cache), with the codec and configmap
// fixtures it needs and shared benchmarks.
package storagetest

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"github.com/kapi-dev/kapi/internal/storage"
)

// NewScheme returns a scheme with core/v1 registered.
func NewScheme() *runtime.Scheme {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		panic(err) // only fails on programming errors in k8s.io/api
	}
	metav1.AddToGroupVersion(scheme, corev1.SchemeGroupVersion)
	return scheme
}

// ProtobufCodec stores core/v1 objects as protobuf in the "k8s\x00"
// envelope, as kube-apiserver does in etcd.
func ProtobufCodec(scheme *runtime.Scheme) runtime.Codec {
	codecs := serializer.NewCodecFactory(scheme)
	ps := protobuf.NewSerializer(scheme, scheme)
	return codecs.CodecForVersions(ps, codecs.UniversalDecoder(corev1.SchemeGroupVersion),
		corev1.SchemeGroupVersion, corev1.SchemeGroupVersion)
}

// ConfigMapResource is the ResourceConfig of configmaps stored as protobuf.
func ConfigMapResource() storage.ResourceConfig {
	return storage.ResourceConfig{
		Codec:          ProtobufCodec(NewScheme()),
		NewFunc:        func() runtime.Object { return &corev1.ConfigMap{} },
		NewListFunc:    func() runtime.Object { return &corev1.ConfigMapList{} },
		ResourcePrefix: "/configmaps",
	}
}

// ConfigMapAttrs gives a configmap's labels and its metadata.name and
// metadata.namespace fields.
func ConfigMapAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok {
		return nil, nil, fmt.Errorf("not a configmap: %T", obj)
	}
	return labels.Set(cm.Labels), fields.Set{
		"metadata.name":      cm.Name,
		"metadata.namespace": cm.Namespace,
	}, nil
}

// Predicate selects configmaps by label and field selector strings.
func Predicate(labelSelector, fieldSelector string) (storage.SelectionPredicate, error) {
	ls, err := labels.Parse(labelSelector)
	if err != nil {
		return storage.SelectionPredicate{}, err
	}
	fs, err := fields.ParseSelector(fieldSelector)
	if err != nil {
		return storage.SelectionPredicate{}, err
	}
	return storage.SelectionPredicate{Label: ls, Field: fs, GetAttrs: ConfigMapAttrs}, nil
}

// ConfigMapKey is the storage key of a configmap.
func ConfigMapKey(namespace, name string) string {
	return "/configmaps/" + namespace + "/" + name
}
