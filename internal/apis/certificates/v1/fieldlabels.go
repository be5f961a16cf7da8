package v1

import (
	"fmt"
	"slices"

	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// fieldLabels lists, per kind, the field selectors kube-apiserver accepts
// (all three kinds are cluster-scoped or select by name only). The
// storages' GetAttrs offer exactly these.
func fieldLabels() map[string][]string {
	return map[string][]string{
		"CertificateSigningRequest": {"metadata.name", "spec.signerName"},
		"ClusterTrustBundle":        {"metadata.name", "spec.signerName"},
		"PodCertificateRequest":     {"metadata.name", "spec.signerName", "spec.podName", "spec.nodeName"},
	}
}

// AddFieldLabelConversions registers the field selectors each kind accepts.
func AddFieldLabelConversions(scheme *runtime.Scheme) error {
	for kind, allowed := range fieldLabels() {
		err := scheme.AddFieldLabelConversionFunc(certificatesv1.SchemeGroupVersion.WithKind(kind),
			func(label, value string) (string, string, error) {
				if slices.Contains(allowed, label) {
					return label, value, nil
				}
				return "", "", fmt.Errorf("field label not supported: %s", label)
			})
		if err != nil {
			return fmt.Errorf("%s: %w", kind, err)
		}
	}
	return nil
}
