// Package subjectrestriction is the CertificateSubjectRestriction
// admission plugin: a CertificateSigningRequest for the
// kubernetes.io/kube-apiserver-client signer may not ask for the
// system:masters group.
package subjectrestriction

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"

	certificatesv1 "k8s.io/api/certificates/v1"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/admission/plugins/forbidden"
)

// PluginName is the name used by --enable-admission-plugins.
const PluginName = "CertificateSubjectRestriction"

// Plugin checks the subjects of new requests.
type Plugin struct{}

var _ admission.ValidationInterface = Plugin{}

var csrs = certificatesv1.Resource("certificatesigningrequests")

// Validate refuses a new kube-apiserver-client request whose subject's
// organization includes system:masters.
func (Plugin) Validate(_ context.Context, a *admission.Attributes) error {
	if a.Operation != admission.Create || a.Resource.GroupResource() != csrs || a.Subresource != "" {
		return nil
	}
	csr, ok := a.Object.(*certificatesv1.CertificateSigningRequest)
	if !ok {
		return forbidden.New(a, fmt.Errorf("expected type CertificateSigningRequest, got: %T", a.Object))
	}
	if csr.Spec.SignerName != certificatesv1.KubeAPIServerClientSignerName {
		return nil
	}
	parsed, err := parseCSR(csr.Spec.Request)
	if err != nil {
		return forbidden.New(a, fmt.Errorf("failed to parse CSR: %v", err))
	}
	for _, group := range parsed.Subject.Organization {
		if group == "system:masters" {
			return forbidden.New(a, fmt.Errorf("use of %s signer with system:masters group is not allowed", certificatesv1.KubeAPIServerClientSignerName))
		}
	}
	return nil
}

// parseCSR decodes the PEM CERTIFICATE REQUEST of a request.
func parseCSR(data []byte) (*x509.CertificateRequest, error) {
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "CERTIFICATE REQUEST" {
		return nil, errors.New("PEM block type must be CERTIFICATE REQUEST")
	}
	return x509.ParseCertificateRequest(block.Bytes)
}
