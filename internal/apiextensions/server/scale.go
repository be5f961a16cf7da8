package server

import (
	"strings"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/scale"
)

// scaleAccessor reads and writes the replica paths the CRD names
// (".spec.replicas", ".status.replicas", ".status.selector").
func scaleAccessor(sc *apiextv1.CustomResourceSubresourceScale) scale.Accessor {
	fieldsOf := func(p string) []string { return strings.Split(strings.TrimPrefix(p, "."), ".") }
	replicas := func(obj runtime.Object, p string) int32 {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok || p == "" {
			return 0
		}
		n, _, _ := unstructured.NestedInt64(u.Object, fieldsOf(p)...)
		return int32(n)
	}
	return scale.Accessor{
		GetReplicas:    func(obj runtime.Object) int32 { return replicas(obj, sc.SpecReplicasPath) },
		StatusReplicas: func(obj runtime.Object) int32 { return replicas(obj, sc.StatusReplicasPath) },
		SetReplicas: func(obj runtime.Object, n int32) {
			if u, ok := obj.(*unstructured.Unstructured); ok {
				_ = unstructured.SetNestedField(u.Object, int64(n), fieldsOf(sc.SpecReplicasPath)...)
			}
		},
		Selector: func(obj runtime.Object) (string, error) {
			u, ok := obj.(*unstructured.Unstructured)
			if !ok || sc.LabelSelectorPath == nil {
				return "", nil
			}
			s, _, _ := unstructured.NestedString(u.Object, fieldsOf(*sc.LabelSelectorPath)...)
			return s, nil
		},
	}
}
