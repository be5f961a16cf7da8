package v1

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// AddFieldLabelConversions registers the field selectors of jobs:
// status.successful besides metadata.name and metadata.namespace, with
// upstream's message for the rest. Cron jobs keep the scheme's default.
func AddFieldLabelConversions(scheme *runtime.Scheme) error {
	return scheme.AddFieldLabelConversionFunc(batchv1.SchemeGroupVersion.WithKind("Job"),
		func(label, value string) (string, string, error) {
			switch label {
			case "metadata.name", "metadata.namespace", "status.successful":
				return label, value, nil
			default:
				return "", "", fmt.Errorf("field label %q not supported for batchv1.Job", label)
			}
		})
}
