package validation

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"

	"github.com/google/go-cmp/cmp"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

// legacyUnknownSignerName is the v1beta1 default signer; v1 refuses it
// for new requests.
const legacyUnknownSignerName = "kubernetes.io/legacy-unknown"

var (
	// Approved, Denied and Failed conditions may only be True.
	trueConditionTypes = sets.New(certificatesv1.CertificateApproved, certificatesv1.CertificateDenied, certificatesv1.CertificateFailed)
	trueStatusOnly     = sets.New(string(corev1.ConditionTrue))
	allStatusValues    = sets.New(string(corev1.ConditionTrue), string(corev1.ConditionFalse), string(corev1.ConditionUnknown))

	allValidUsages = sets.New(
		certificatesv1.UsageSigning, certificatesv1.UsageDigitalSignature, certificatesv1.UsageContentCommitment,
		certificatesv1.UsageKeyEncipherment, certificatesv1.UsageKeyAgreement, certificatesv1.UsageDataEncipherment,
		certificatesv1.UsageCertSign, certificatesv1.UsageCRLSign, certificatesv1.UsageEncipherOnly,
		certificatesv1.UsageDecipherOnly, certificatesv1.UsageAny, certificatesv1.UsageServerAuth,
		certificatesv1.UsageClientAuth, certificatesv1.UsageCodeSigning, certificatesv1.UsageEmailProtection,
		certificatesv1.UsageSMIME, certificatesv1.UsageIPsecEndSystem, certificatesv1.UsageIPsecTunnel,
		certificatesv1.UsageIPsecUser, certificatesv1.UsageTimestamping, certificatesv1.UsageOCSPSigning,
		certificatesv1.UsageMicrosoftSGC, certificatesv1.UsageNetscapeSGC,
	)
)

// csrOptions are what a write may do. The subresource flags say which
// path the write came through; the tolerate flags keep objects that were
// stored before a rule existed writable.
type csrOptions struct {
	allowSettingApprovalConditions bool
	allowSettingCertificate        bool

	tolerateBothApprovedAndDenied bool
	tolerateLegacySignerName      bool
	tolerateDuplicateConditions   bool
	tolerateEmptyConditionType    bool
	tolerateArbitraryCertificate  bool
	tolerateUnknownUsages         bool
	tolerateDuplicateUsages       bool
}

// ParseCSR decodes the PEM CERTIFICATE REQUEST of a CSR's spec.request.
func ParseCSR(pemBytes []byte) (*x509.CertificateRequest, error) {
	block, _ := pem.Decode(pemBytes)
	if block == nil || block.Type != "CERTIFICATE REQUEST" {
		return nil, errors.New("PEM block type must be CERTIFICATE REQUEST")
	}
	return x509.ParseCertificateRequest(block.Bytes)
}

// ValidateCertificateRequestName accepts any name: CSRs are often named
// after a hash.
func ValidateCertificateRequestName(string, bool) []string { return nil }

// ValidateCertificateSigningRequestCreate checks a new CSR.
func ValidateCertificateSigningRequestCreate(csr *certificatesv1.CertificateSigningRequest) field.ErrorList {
	return validateCSR(csr, optionsFor(csr, nil))
}

// ValidateCertificateSigningRequestUpdate checks an update of the main
// resource: no approval conditions, no certificate.
func ValidateCertificateSigningRequestUpdate(csr, old *certificatesv1.CertificateSigningRequest) field.ErrorList {
	return validateCSRUpdate(csr, old, optionsFor(csr, old))
}

// ValidateCertificateSigningRequestStatusUpdate checks a write of
// certificatesigningrequests/status, which may set the certificate.
func ValidateCertificateSigningRequestStatusUpdate(csr, old *certificatesv1.CertificateSigningRequest) field.ErrorList {
	opts := optionsFor(csr, old)
	opts.allowSettingCertificate = true
	return validateCSRUpdate(csr, old, opts)
}

// ValidateCertificateSigningRequestApprovalUpdate checks a write of
// certificatesigningrequests/approval, which may add or change the
// Approved and Denied conditions.
func ValidateCertificateSigningRequestApprovalUpdate(csr, old *certificatesv1.CertificateSigningRequest) field.ErrorList {
	opts := optionsFor(csr, old)
	opts.allowSettingApprovalConditions = true
	return validateCSRUpdate(csr, old, opts)
}

func validateCSR(csr *certificatesv1.CertificateSigningRequest, opts csrOptions) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&csr.ObjectMeta, false, ValidateCertificateRequestName, field.NewPath("metadata"))
	specPath := field.NewPath("spec")
	if err := checkRequest(csr.Spec.Request); err != nil {
		allErrs = append(allErrs, field.Invalid(specPath.Child("request"), csr.Spec.Request, err.Error()))
	}
	allErrs = append(allErrs, validateUsages(csr.Spec.Usages, specPath.Child("usages"), opts)...)
	if !opts.tolerateLegacySignerName && csr.Spec.SignerName == legacyUnknownSignerName {
		allErrs = append(allErrs, field.Invalid(specPath.Child("signerName"), csr.Spec.SignerName, "the legacy signerName is not allowed via this API version"))
	} else {
		allErrs = append(allErrs, ValidateSignerName(specPath.Child("signerName"), csr.Spec.SignerName)...)
	}
	if s := csr.Spec.ExpirationSeconds; s != nil && *s < 600 {
		allErrs = append(allErrs, field.Invalid(specPath.Child("expirationSeconds"), *s, "may not specify a duration less than 600 seconds (10 minutes)"))
	}
	allErrs = append(allErrs, validateConditions(field.NewPath("status", "conditions"), csr, opts)...)
	if !opts.tolerateArbitraryCertificate {
		if err := validateCertificate(csr.Status.Certificate); err != nil {
			allErrs = append(allErrs, field.Invalid(field.NewPath("status", "certificate"), "<certificate data>", err.Error()))
		}
	}
	return allErrs
}

// checkRequest parses the request and checks its signature.
func checkRequest(request []byte) error {
	req, err := ParseCSR(request)
	if err != nil {
		return err
	}
	return req.CheckSignature()
}

func validateUsages(usages []certificatesv1.KeyUsage, fldPath *field.Path, opts csrOptions) field.ErrorList {
	var allErrs field.ErrorList
	if len(usages) == 0 {
		allErrs = append(allErrs, field.Required(fldPath, ""))
	}
	seen := sets.New[certificatesv1.KeyUsage]()
	for i, u := range usages {
		if !opts.tolerateUnknownUsages && !allValidUsages.Has(u) {
			allErrs = append(allErrs, field.NotSupported(fldPath.Index(i), u, sets.List(allValidUsages)))
		}
		if !opts.tolerateDuplicateUsages && seen.Has(u) {
			allErrs = append(allErrs, field.Duplicate(fldPath.Index(i), u))
		}
		seen.Insert(u)
	}
	return allErrs
}

func validateConditions(fldPath *field.Path, csr *certificatesv1.CertificateSigningRequest, opts csrOptions) field.ErrorList {
	var allErrs field.ErrorList
	seen := sets.New[certificatesv1.RequestConditionType]()
	hasApproved, hasDenied := false, false
	for i, c := range csr.Status.Conditions {
		path := fldPath.Index(i)
		if !opts.tolerateEmptyConditionType && c.Type == "" {
			allErrs = append(allErrs, field.Required(path.Child("type"), ""))
		}
		allowed := allStatusValues
		if trueConditionTypes.Has(c.Type) {
			allowed = trueStatusOnly
		}
		switch {
		case c.Status == "":
			allErrs = append(allErrs, field.Required(path.Child("status"), ""))
		case !allowed.Has(string(c.Status)):
			allErrs = append(allErrs, field.NotSupported(path.Child("status"), c.Status, sets.List(allowed)))
		}
		if !opts.tolerateBothApprovedAndDenied {
			switch c.Type {
			case certificatesv1.CertificateApproved:
				hasApproved = true
			case certificatesv1.CertificateDenied:
				hasDenied = true
			}
			if (c.Type == certificatesv1.CertificateApproved && hasDenied) || (c.Type == certificatesv1.CertificateDenied && hasApproved) {
				allErrs = append(allErrs, field.Invalid(path.Child("type"), c.Type, "Approved and Denied conditions are mutually exclusive"))
			}
		}
		if !opts.tolerateDuplicateConditions && seen.Has(c.Type) {
			allErrs = append(allErrs, field.Duplicate(path.Child("type"), c.Type))
		}
		seen.Insert(c.Type)
	}
	return allErrs
}

// validateCertificate accepts an empty certificate or one or more PEM
// CERTIFICATE blocks without headers, each holding a certificate.
func validateCertificate(pemData []byte) error {
	if len(pemData) == 0 {
		return nil
	}
	blocks := 0
	for {
		block, rest := pem.Decode(pemData)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			return fmt.Errorf("only CERTIFICATE PEM blocks are allowed, found %q", block.Type)
		}
		if len(block.Headers) != 0 {
			return errors.New("no PEM block headers are permitted")
		}
		blocks++
		certs, err := x509.ParseCertificates(block.Bytes)
		if err != nil {
			return err
		}
		if len(certs) == 0 {
			return errors.New("found CERTIFICATE PEM block containing 0 certificates")
		}
		pemData = rest
	}
	if blocks == 0 {
		return errors.New("must contain at least one CERTIFICATE PEM block")
	}
	return nil
}

func validateCSRUpdate(csr, old *certificatesv1.CertificateSigningRequest, opts csrOptions) field.ErrorList {
	allErrs := validateCSR(csr, opts)
	conditionsPath := field.NewPath("status", "conditions")
	for _, t := range []certificatesv1.RequestConditionType{certificatesv1.CertificateApproved, certificatesv1.CertificateDenied, certificatesv1.CertificateFailed} {
		if len(findConditions(csr, t)) < len(findConditions(old, t)) {
			allErrs = append(allErrs, field.Forbidden(conditionsPath, fmt.Sprintf("updates may not remove a condition of type %q", t)))
		}
	}
	if !opts.allowSettingApprovalConditions {
		for _, t := range []certificatesv1.RequestConditionType{certificatesv1.CertificateApproved, certificatesv1.CertificateDenied} {
			oldConds, newConds := findConditions(old, t), findConditions(csr, t)
			switch {
			case len(newConds) < len(oldConds):
				// Reported above.
			case len(newConds) > len(oldConds):
				allErrs = append(allErrs, field.Forbidden(conditionsPath, fmt.Sprintf("updates may not add a condition of type %q", t)))
			case !equality.Semantic.DeepEqual(oldConds, newConds):
				allErrs = append(allErrs, field.Forbidden(conditionsPath, fmt.Sprintf("updates may not modify a condition of type %q\n%v", t, cmp.Diff(oldConds, newConds))))
			}
		}
	}
	if !bytes.Equal(csr.Status.Certificate, old.Status.Certificate) {
		if !opts.allowSettingCertificate {
			allErrs = append(allErrs, field.Forbidden(field.NewPath("status", "certificate"), "updates may not set certificate content"))
		} else if len(old.Status.Certificate) > 0 {
			allErrs = append(allErrs, field.Forbidden(field.NewPath("status", "certificate"), "updates may not modify existing certificate content"))
		}
	}
	return append(allErrs, corevalidation.ValidateObjectMetaUpdate(&csr.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
}

func findConditions(csr *certificatesv1.CertificateSigningRequest, t certificatesv1.RequestConditionType) []certificatesv1.CertificateSigningRequestCondition {
	var out []certificatesv1.CertificateSigningRequestCondition
	for _, c := range csr.Status.Conditions {
		if c.Type == t {
			out = append(out, c)
		}
	}
	return out
}

// optionsFor tolerates in an update what the stored object (old, nil on
// create) already had.
func optionsFor(csr, old *certificatesv1.CertificateSigningRequest) csrOptions {
	if old == nil {
		return csrOptions{}
	}
	return csrOptions{
		tolerateBothApprovedAndDenied: len(findConditions(old, certificatesv1.CertificateApproved)) > 0 && len(findConditions(old, certificatesv1.CertificateDenied)) > 0,
		tolerateLegacySignerName:      old.Spec.SignerName == legacyUnknownSignerName,
		tolerateDuplicateConditions:   hasDuplicateConditionTypes(old),
		tolerateEmptyConditionType:    len(findConditions(old, "")) > 0,
		tolerateArbitraryCertificate:  bytes.Equal(csr.Status.Certificate, old.Status.Certificate) || validateCertificate(old.Status.Certificate) != nil,
		tolerateUnknownUsages:         hasUnknownUsage(old.Spec.Usages),
		tolerateDuplicateUsages:       len(sets.New(old.Spec.Usages...)) != len(old.Spec.Usages),
	}
}

func hasDuplicateConditionTypes(csr *certificatesv1.CertificateSigningRequest) bool {
	seen := sets.New[certificatesv1.RequestConditionType]()
	for _, c := range csr.Status.Conditions {
		if seen.Has(c.Type) {
			return true
		}
		seen.Insert(c.Type)
	}
	return false
}

func hasUnknownUsage(usages []certificatesv1.KeyUsage) bool {
	for _, u := range usages {
		if !allValidUsages.Has(u) {
			return true
		}
	}
	return false
}
