// Package v1 holds kapi's own scheme functions for admissionregistration.k8s.io/v1: defaulting,
// conversions to and from the other served versions, and the field-label
// conversions kube-apiserver registers for the k8s.io/api types.
package v1
