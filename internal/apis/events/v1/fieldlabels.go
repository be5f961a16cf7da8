package v1

import (
	"fmt"

	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// fieldLabels maps each field selector kube-apiserver accepts for
// events.k8s.io/v1 Events to the field of the core/v1 Event it selects
// on: both groups share one storage, whose GetAttrs offers the core
// names.
func fieldLabels() map[string]string {
	return map[string]string{
		"metadata.name":             "metadata.name",
		"metadata.namespace":        "metadata.namespace",
		"reason":                    "reason",
		"type":                      "type",
		"regarding.kind":            "involvedObject.kind",
		"regarding.namespace":       "involvedObject.namespace",
		"regarding.name":            "involvedObject.name",
		"regarding.uid":             "involvedObject.uid",
		"regarding.apiVersion":      "involvedObject.apiVersion",
		"regarding.resourceVersion": "involvedObject.resourceVersion",
		"regarding.fieldPath":       "involvedObject.fieldPath",
		"reportingController":       "reportingComponent",
		// There is no source field in events.k8s.io any more (it is
		// deprecatedSource), but upstream still selects on the core one.
		"source": "source",
	}
}

// AddFieldLabelConversions registers the field selectors of
// events.k8s.io/v1 Events, translated to core/v1 field names.
func AddFieldLabelConversions(scheme *runtime.Scheme) error {
	mapping := fieldLabels()
	return scheme.AddFieldLabelConversionFunc(eventsv1.SchemeGroupVersion.WithKind("Event"),
		func(label, value string) (string, string, error) {
			to, ok := mapping[label]
			if !ok {
				return "", "", fmt.Errorf("field label not supported: %s", label)
			}
			return to, value, nil
		})
}
