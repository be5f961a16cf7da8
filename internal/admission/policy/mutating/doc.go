// Package mutating is the MutatingAdmissionPolicy admission plugin:
// admissionregistration.k8s.io/v1 policies and bindings whose CEL
// mutations (ApplyConfiguration, merged as server-side apply merges, and
// JSONPatch) change objects before they are validated and stored.
package mutating
