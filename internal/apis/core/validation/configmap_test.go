package validation

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"
)

func TestValidateConfigMap(t *testing.T) {
	meta := metav1.ObjectMeta{Name: "cm", Namespace: "ns"}
	keyMsg := validation.IsConfigMapKey("a b")[0]
	tests := []struct {
		name string
		cm   corev1.ConfigMap
		want []string
	}{
		{"valid", corev1.ConfigMap{ObjectMeta: meta, Data: map[string]string{"a.txt": "x"}, BinaryData: map[string][]byte{"b": {1}}}, nil},
		{"bad name", corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "Bad_Name", Namespace: "ns"}},
			[]string{"metadata.name: Invalid value: " + validation.IsDNS1123Subdomain("Bad_Name")[0]}},
		{"missing namespace", corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}},
			[]string{"metadata.namespace: Required value: "}},
		{"bad data key", corev1.ConfigMap{ObjectMeta: meta, Data: map[string]string{"a b": ""}},
			[]string{"data[a b]: Invalid value: " + keyMsg}},
		{"bad binary key", corev1.ConfigMap{ObjectMeta: meta, BinaryData: map[string][]byte{"a b": nil}},
			[]string{"binaryData[a b]: Invalid value: " + keyMsg}},
		{"duplicate key", corev1.ConfigMap{ObjectMeta: meta, Data: map[string]string{"k": ""}, BinaryData: map[string][]byte{"k": nil}},
			[]string{"data[k]: Invalid value: duplicate of key present in binaryData"}},
		{"too large", corev1.ConfigMap{ObjectMeta: meta, Data: map[string]string{"a": strings.Repeat("x", MaxSecretSize)}, BinaryData: map[string][]byte{"b": {1}}},
			[]string{"[]: Too long: may not be more than 1048576 bytes"}},
		{"bad finalizer", corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "ns", Finalizers: []string{"custom"}}},
			[]string{"metadata.finalizers[0]: Invalid value: name is neither a standard finalizer name nor is it fully qualified"}},
	}
	for _, tt := range tests {
		checkErrors(t, tt.name, ValidateConfigMap(&tt.cm), tt.want)
	}
}

func TestValidateConfigMapUpdate(t *testing.T) {
	meta := metav1.ObjectMeta{Name: "cm", Namespace: "ns", ResourceVersion: "1"}
	immutable := corev1.ConfigMap{ObjectMeta: meta, Immutable: ptr.To(true), Data: map[string]string{"a": "1"}, BinaryData: map[string][]byte{"b": {1}}}
	tests := []struct {
		name     string
		old, new corev1.ConfigMap
		want     []string
	}{
		{"mutable change", corev1.ConfigMap{ObjectMeta: meta, Data: map[string]string{"a": "1"}}, corev1.ConfigMap{ObjectMeta: meta, Data: map[string]string{"a": "2"}}, nil},
		{"immutable unchanged", immutable, immutable, nil},
		{"immutable unset", immutable, func() corev1.ConfigMap { c := *immutable.DeepCopy(); c.Immutable = nil; return c }(),
			[]string{"immutable: Forbidden: field is immutable when `immutable` is set"}},
		{"immutable data changed", immutable, func() corev1.ConfigMap {
			c := *immutable.DeepCopy()
			c.Data["a"] = "2"
			c.BinaryData = nil
			return c
		}(), []string{
			"data: Forbidden: field is immutable when `immutable` is set",
			"binaryData: Forbidden: field is immutable when `immutable` is set",
		}},
		{"name changed", corev1.ConfigMap{ObjectMeta: meta}, corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "other", Namespace: "ns", ResourceVersion: "1"}},
			[]string{"metadata.name: Invalid value: field is immutable"}},
	}
	for _, tt := range tests {
		checkErrors(t, tt.name, ValidateConfigMapUpdate(&tt.new, &tt.old), tt.want)
	}
}
