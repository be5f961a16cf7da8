// Package cel compiles and evaluates the CEL validation rules
// (x-kubernetes-validations) of a custom resource definition's structural
// schema: typed declarations derived from the schema, the Kubernetes CEL
// libraries, static cost estimation for CRD validation, and evaluation of
// the rules (including transition rules on oldSelf) against custom resources.
package cel
