package v1

import (
	"fmt"

	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// AddFieldLabelConversions registers the field selectors each kind accepts
// beyond metadata.name and metadata.namespace: resource slices are
// selectable by node, driver and pool. The slice storage's GetAttrs offers
// exactly these.
func AddFieldLabelConversions(scheme *runtime.Scheme) error {
	gvk := resourcev1.SchemeGroupVersion.WithKind("ResourceSlice")
	return scheme.AddFieldLabelConversionFunc(gvk, func(label, value string) (string, string, error) {
		switch label {
		case "metadata.name", resourcev1.ResourceSliceSelectorNodeName, resourcev1.ResourceSliceSelectorDriver, resourcev1.ResourceSliceSelectorPoolName:
			return label, value, nil
		}
		return "", "", fmt.Errorf("field label not supported for %s: %s", gvk, label)
	})
}
