// Package certificates holds what the CertificateSigningRequest
// controllers share: reading a request, its conditions, and upstream's
// rules for what a kubelet may ask for.
package certificates

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
	"strings"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
)

// ParseCSR decodes the PEM CERTIFICATE REQUEST of a CSR's spec.request.
func ParseCSR(pemBytes []byte) (*x509.CertificateRequest, error) {
	block, _ := pem.Decode(pemBytes)
	if block == nil || block.Type != "CERTIFICATE REQUEST" {
		return nil, errors.New("PEM block type must be CERTIFICATE REQUEST")
	}
	return x509.ParseCertificateRequest(block.Bytes)
}

// HasTrueCondition reports whether the CSR has condition typ set True.
func HasTrueCondition(csr *certificatesv1.CertificateSigningRequest, typ certificatesv1.RequestConditionType) bool {
	return slices.ContainsFunc(csr.Status.Conditions, func(c certificatesv1.CertificateSigningRequestCondition) bool {
		return c.Type == typ && (c.Status == corev1.ConditionTrue || c.Status == "")
	})
}

// ApprovalState reports whether the CSR was approved or denied.
func ApprovalState(csr *certificatesv1.CertificateSigningRequest) (approved, denied bool) {
	return HasTrueCondition(csr, certificatesv1.CertificateApproved), HasTrueCondition(csr, certificatesv1.CertificateDenied)
}

// IsApproved is an approved CSR that was not also denied.
func IsApproved(csr *certificatesv1.CertificateSigningRequest) bool {
	approved, denied := ApprovalState(csr)
	return approved && !denied
}

// Upstream's refusals of kubelet requests.
var (
	errOrganizationNotSystemNodes = errors.New("subject organization is not system:nodes")
	errCommonNameNotSystemNode    = errors.New("subject common name does not begin with system:node:")
	errDNSOrIPSANRequired         = errors.New("DNS or IP subjectAltName is required")
	errDNSSANNotAllowed           = errors.New("DNS subjectAltNames are not allowed")
	errEmailSANNotAllowed         = errors.New("Email subjectAltNames are not allowed")
	errIPSANNotAllowed            = errors.New("IP subjectAltNames are not allowed")
	errURISANNotAllowed           = errors.New("URI subjectAltNames are not allowed")
)

var (
	kubeletServingUsages      = []string{"digital signature", "key encipherment", "server auth"}
	kubeletServingUsagesNoRSA = []string{"digital signature", "server auth"}
	kubeletClientUsages       = []string{"client auth", "digital signature", "key encipherment"}
	kubeletClientUsagesNoRSA  = []string{"client auth", "digital signature"}
)

// usagesAre reports whether usages, as a set, equal one of the sets.
func usagesAre(usages []certificatesv1.KeyUsage, sets ...[]string) bool {
	var got []string
	for _, u := range usages {
		if !slices.Contains(got, string(u)) {
			got = append(got, string(u))
		}
	}
	slices.Sort(got)
	for _, want := range sets {
		w := slices.Clone(want)
		slices.Sort(w)
		if slices.Equal(got, w) {
			return true
		}
	}
	return false
}

func systemNodes(req *x509.CertificateRequest) error {
	if !slices.Equal(req.Subject.Organization, []string{"system:nodes"}) {
		return errOrganizationNotSystemNodes
	}
	return nil
}

// ValidateKubeletServingCSR checks a kubernetes.io/kubelet-serving
// request as upstream: organization system:nodes, a DNS or IP SAN and no
// other kind, the serving usages, CN system:node:<name>.
func ValidateKubeletServingCSR(req *x509.CertificateRequest, usages []certificatesv1.KeyUsage) error {
	if err := systemNodes(req); err != nil {
		return err
	}
	switch {
	case len(req.DNSNames) == 0 && len(req.IPAddresses) == 0:
		return errDNSOrIPSANRequired
	case len(req.EmailAddresses) > 0:
		return errEmailSANNotAllowed
	case len(req.URIs) > 0:
		return errURISANNotAllowed
	}
	if !usagesAre(usages, kubeletServingUsages, kubeletServingUsagesNoRSA) {
		return fmt.Errorf("usages did not match %v", kubeletServingUsages)
	}
	if !strings.HasPrefix(req.Subject.CommonName, "system:node:") {
		return errCommonNameNotSystemNode
	}
	return nil
}

// ValidateKubeletClientCSR checks a kubernetes.io/kube-apiserver-client-
// kubelet request as upstream: organization system:nodes, no SAN, the
// client usages, CN system:node:<name>.
func ValidateKubeletClientCSR(req *x509.CertificateRequest, usages []certificatesv1.KeyUsage) error {
	if err := systemNodes(req); err != nil {
		return err
	}
	switch {
	case len(req.DNSNames) > 0:
		return errDNSSANNotAllowed
	case len(req.EmailAddresses) > 0:
		return errEmailSANNotAllowed
	case len(req.IPAddresses) > 0:
		return errIPSANNotAllowed
	case len(req.URIs) > 0:
		return errURISANNotAllowed
	}
	if !strings.HasPrefix(req.Subject.CommonName, "system:node:") {
		return errCommonNameNotSystemNode
	}
	if !usagesAre(usages, kubeletClientUsages, kubeletClientUsagesNoRSA) {
		return fmt.Errorf("usages did not match %v", kubeletClientUsages)
	}
	return nil
}

// ValidateAPIServerClientUsages allows a kubernetes.io/kube-apiserver-
// client certificate only client auth, with digital signature and key
// encipherment optional.
func ValidateAPIServerClientUsages(usages []certificatesv1.KeyUsage) error {
	hasClientAuth := false
	for _, u := range usages {
		switch u {
		case certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment:
		case certificatesv1.UsageClientAuth:
			hasClientAuth = true
		default:
			return fmt.Errorf("invalid usage for client certificate: %s", u)
		}
	}
	if !hasClientAuth {
		return fmt.Errorf("invalid usage for client certificate: missing required usage: %s", certificatesv1.UsageClientAuth)
	}
	return nil
}
