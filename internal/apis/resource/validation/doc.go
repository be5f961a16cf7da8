// Package validation checks resource.k8s.io/v1 (dynamic resource
// allocation) objects the way kube-apiserver does for the rules users hit
// daily: names, required fields, request shapes, opaque parameters and
// immutability. CEL expressions are not compiled. Functions never change
// their arguments.
package validation
