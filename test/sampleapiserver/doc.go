// Package sampleapiserver is an aggregated API server built on the
// upstream k8s.io/apiserver library, the way kubernetes/sample-apiserver
// is, and the tests that run it behind kapi. It serves one group
// version, wardle.example.com/v1alpha1, with one namespaced kind,
// Flunder, kept in memory. Its authentication and authorization are
// delegated to kapi as upstream's documentation tells an extension
// server to do: TokenReview and the front-proxy settings of
// kube-system/extension-apiserver-authentication for who the caller is,
// SubjectAccessReview for what the caller may do.
//
// The library is a test dependency only: kapi writes its own server and
// never imports k8s.io/apiserver (internal/meta_test.go checks the
// binary). This package shows that a server written against upstream's
// library, unchanged, works behind kapi as behind kube-apiserver.
package sampleapiserver
