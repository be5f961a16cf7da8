package validation

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// WarningsForPodSpec returns upstream's warnings for legal but suspicious
// pod specs at fldPath (spec, or spec.template.spec): a negative grace
// period, which is treated as 1.
func WarningsForPodSpec(spec *corev1.PodSpec, fldPath *field.Path) []string {
	var warnings []string
	if g := spec.TerminationGracePeriodSeconds; g != nil && *g < 0 {
		warnings = append(warnings, fmt.Sprintf("%s: must be >= 0; negative values are invalid and will be treated as 1", fldPath.Child("terminationGracePeriodSeconds")))
	}
	return warnings
}
