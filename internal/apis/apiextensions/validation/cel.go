package validation

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apiextensions/cel"
	"github.com/kapi-dev/kapi/internal/apiextensions/schema"
)

// validateCELRules compiles the x-kubernetes-validations rules of an
// openAPIV3Schema and reports compile and cost errors. Like upstream it
// stays quiet while the schema itself is invalid: CEL types cannot be
// derived from a non-structural schema and the errors would mislead.
func validateCELRules(s *apiextensionsv1.JSONSchemaProps, fldPath *field.Path) field.ErrorList {
	ss, errs := schema.NewStructural(s, fldPath)
	if ss == nil || len(errs) > 0 {
		return nil
	}
	return cel.CompileErrors(ss, fldPath)
}
