// Package validating is the ValidatingAdmissionPolicy admission plugin:
// policies and their bindings (admissionregistration.k8s.io/v1), read
// live from informers, compiled once per policy generation, and
// evaluated for every request they match with Deny, Warn and Audit
// actions, as kube-apiserver's plugin of the same name. It also holds
// the type checking the status controller writes into a policy's status.
package validating
