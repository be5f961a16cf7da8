package v1

import (
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
)

// RegisterDefaults adds the defaulting of CustomResourceDefinitions and
// their lists to scheme.
func RegisterDefaults(scheme *runtime.Scheme) error {
	scheme.AddTypeDefaultingFunc(&CustomResourceDefinition{}, func(obj any) {
		SetDefaultsCustomResourceDefinition(obj.(*CustomResourceDefinition))
	})
	scheme.AddTypeDefaultingFunc(&CustomResourceDefinitionList{}, func(obj any) {
		list := obj.(*CustomResourceDefinitionList)
		for i := range list.Items {
			SetDefaultsCustomResourceDefinition(&list.Items[i])
		}
	})
	return nil
}

// SetDefaultsCustomResourceDefinition defaults the spec and, when the
// client sent none, records the storage version in status.storedVersions,
// so a new CRD validates (it must list its storage version).
func SetDefaultsCustomResourceDefinition(crd *CustomResourceDefinition) {
	SetDefaultsCustomResourceDefinitionSpec(&crd.Spec)
	if len(crd.Status.StoredVersions) == 0 {
		for _, v := range crd.Spec.Versions {
			if v.Storage {
				crd.Status.StoredVersions = append(crd.Status.StoredVersions, v.Name)
				break
			}
		}
	}
}

// SetDefaultsCustomResourceDefinitionSpec derives the singular and list
// kind names from the kind, makes "no conversion" explicit and gives
// webhook services their default port.
func SetDefaultsCustomResourceDefinitionSpec(spec *CustomResourceDefinitionSpec) {
	if spec.Names.Singular == "" {
		spec.Names.Singular = strings.ToLower(spec.Names.Kind)
	}
	if spec.Names.ListKind == "" && spec.Names.Kind != "" {
		spec.Names.ListKind = spec.Names.Kind + "List"
	}
	if spec.Conversion == nil {
		spec.Conversion = &CustomResourceConversion{Strategy: NoneConverter}
	}
	if w := spec.Conversion.Webhook; w != nil && w.ClientConfig != nil && w.ClientConfig.Service != nil {
		SetDefaultsServiceReference(w.ClientConfig.Service)
	}
}

// SetDefaultsServiceReference sets the HTTPS port, 443, when none is given.
func SetDefaultsServiceReference(ref *ServiceReference) {
	if ref.Port == nil {
		port := int32(443)
		ref.Port = &port
	}
}
