// Package kubebuilder is a kubebuilder-style operator test suite — a CRD
// with the status and scale subresources, a controller-runtime reconciler
// with a finalizer, status writes and an owned ConfigMap — whose one set
// of assertions runs three ways: envtest with KUBEBUILDER_ASSETS laid out
// by `kapi envtest-assets`, kapi in-process through kapitest handed to
// envtest as an existing cluster, and kapitest on embedded etcd.
package kubebuilder
