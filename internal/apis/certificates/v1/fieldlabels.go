package v1

import (
	"fmt"

	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// AddFieldLabelConversions registers the field selectors each kind accepts
// beyond metadata.name: certificate signing requests are selectable by
// spec.signerName. The CSR storage's GetAttrs offers exactly these.
func AddFieldLabelConversions(scheme *runtime.Scheme) error {
	return scheme.AddFieldLabelConversionFunc(certificatesv1.SchemeGroupVersion.WithKind("CertificateSigningRequest"),
		func(label, value string) (string, string, error) {
			switch label {
			case "metadata.name", "spec.signerName":
				return label, value, nil
			}
			return "", "", fmt.Errorf("field label not supported: %s", label)
		})
}
