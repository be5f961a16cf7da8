package printers

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ConfigMapTable prints NAME DATA AGE; DATA counts data and binaryData
// keys.
func ConfigMapTable() *Table[*corev1.ConfigMap] {
	columns := []metav1.TableColumnDefinition{
		NameColumn(),
		{Name: "Data", Type: "string", Description: corev1.ConfigMap{}.SwaggerDoc()["data"]},
		AgeColumn(),
	}
	return New(columns, func(cm *corev1.ConfigMap, now time.Time) []any {
		return []any{cm.Name, int64(len(cm.Data) + len(cm.BinaryData)), Age(cm.CreationTimestamp, now)}
	})
}

// SecretTable prints NAME TYPE DATA AGE.
func SecretTable() *Table[*corev1.Secret] {
	columns := []metav1.TableColumnDefinition{
		NameColumn(),
		{Name: "Type", Type: "string", Description: corev1.Secret{}.SwaggerDoc()["type"]},
		{Name: "Data", Type: "string", Description: corev1.Secret{}.SwaggerDoc()["data"]},
		AgeColumn(),
	}
	return New(columns, func(s *corev1.Secret, now time.Time) []any {
		return []any{s.Name, string(s.Type), int64(len(s.Data)), Age(s.CreationTimestamp, now)}
	})
}

// ServiceAccountTable prints NAME SECRETS AGE.
func ServiceAccountTable() *Table[*corev1.ServiceAccount] {
	columns := []metav1.TableColumnDefinition{
		NameColumn(),
		{Name: "Secrets", Type: "string", Description: corev1.ServiceAccount{}.SwaggerDoc()["secrets"]},
		AgeColumn(),
	}
	return New(columns, func(sa *corev1.ServiceAccount, now time.Time) []any {
		return []any{sa.Name, int64(len(sa.Secrets)), Age(sa.CreationTimestamp, now)}
	})
}

// NamespaceTable prints NAME STATUS AGE.
func NamespaceTable() *Table[*corev1.Namespace] {
	columns := []metav1.TableColumnDefinition{
		NameColumn(),
		{Name: "Status", Type: "string", Description: "The status of the namespace"},
		AgeColumn(),
	}
	return New(columns, func(ns *corev1.Namespace, now time.Time) []any {
		return []any{ns.Name, string(ns.Status.Phase), Age(ns.CreationTimestamp, now)}
	})
}
