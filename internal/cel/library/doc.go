// Package library holds kapi's implementations of the Kubernetes CEL
// libraries that kube-apiserver 1.37 adds to every CEL environment
// (CRD validation rules, admission policies, matchConditions): quantity,
// ip, cidr, url, format (named formats), semver and the lists library's
// includes. Function names, overloads, result types and error messages
// follow upstream's, so expressions written for Kubernetes compile and
// behave the same here.
package library
