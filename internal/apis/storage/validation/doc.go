// Package validation checks storage.k8s.io/v1 objects the way
// kube-apiserver does: the same rules, field paths and messages, written
// against the k8s.io/api types. Functions never change their arguments.
package validation
