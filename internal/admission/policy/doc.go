// Package policy holds what the CEL admission policies share
// (ValidatingAdmissionPolicy in validating/, MutatingAdmissionPolicy in
// mutating/): matching a request against matchConstraints and a binding's
// matchResources, compiling expressions once per policy generation in
// the admission CEL environment (object, oldObject, request, params,
// namespaceObject, variables), evaluating them under upstream's cost
// budgets, and resolving a binding's parameters.
package policy
