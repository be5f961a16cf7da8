package server

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/version"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// deprecationWarning is the Warning every request to a deprecated version
// carries: the CRD's own text, else upstream's default naming the
// highest-priority served, non-deprecated version newer than this one.
func deprecationWarning(v apiextv1.CustomResourceDefinitionVersion, spec apiextv1.CustomResourceDefinitionSpec) string {
	if v.DeprecationWarning != nil {
		return *v.DeprecationWarning
	}
	msg := fmt.Sprintf("%s/%s %s is deprecated", spec.Group, v.Name, spec.Names.Kind)
	var newer []string
	for _, o := range spec.Versions {
		if o.Served && !o.Deprecated && version.CompareKubeAwareVersionStrings(v.Name, o.Name) < 0 {
			newer = append(newer, o.Name)
		}
	}
	if len(newer) == 0 {
		return msg
	}
	best := slices.MaxFunc(newer, version.CompareKubeAwareVersionStrings)
	return msg + fmt.Sprintf("; use %s/%s %s", spec.Group, best, spec.Names.Kind)
}
