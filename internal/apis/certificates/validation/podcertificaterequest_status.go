package validation

import (
	"crypto"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/mail"
	"strings"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

var (
	certChainPath    = field.NewPath("status", "certificateChain")
	notBeforePath    = field.NewPath("status", "notBefore")
	notAfterPath     = field.NewPath("status", "notAfter")
	beginRefreshPath = field.NewPath("status", "beginRefreshAt")
)

// terminalConditions are the condition types a signer may set, each at
// most once and only True.
var terminalConditions = []string{
	certificatesv1.PodCertificateRequestConditionTypeIssued,
	certificatesv1.PodCertificateRequestConditionTypeDenied,
	certificatesv1.PodCertificateRequestConditionTypeFailed,
}

// ValidatePodCertificateRequestStatusUpdate checks a status write: the
// status only changes by moving to Issued (with a certificate for the
// requested key, its times matching the leaf), Denied or Failed, and never
// after. now is the server's time, against which notBefore must lie
// within five minutes.
func ValidatePodCertificateRequestStatusUpdate(req, old *certificatesv1.PodCertificateRequest, now time.Time) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMetaUpdate(&req.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	if len(allErrs) > 0 {
		return allErrs
	}
	condPath := field.NewPath("status", "conditions")
	known := 0
	for i, c := range req.Status.Conditions {
		p := condPath.Index(i)
		switch c.Type {
		case certificatesv1.PodCertificateRequestConditionTypeIssued, certificatesv1.PodCertificateRequestConditionTypeDenied, certificatesv1.PodCertificateRequestConditionTypeFailed:
			if known++; known > 1 {
				allErrs = append(allErrs, field.Invalid(p.Child("type"), c.Type, `There may be at most one condition with type "Issued", "Denied", or "Failed"`))
			}
			if c.Status != metav1.ConditionTrue {
				allErrs = append(allErrs, field.NotSupported(p.Child("status"), c.Status, []metav1.ConditionStatus{metav1.ConditionTrue}))
			}
		default:
			allErrs = append(allErrs, field.NotSupported(p.Child("type"), c.Type, terminalConditions))
		}
	}
	allErrs = append(allErrs, metav1validation.ValidateConditions(req.Status.Conditions, condPath)...)
	if len(allErrs) > 0 {
		return allErrs
	}

	statusPath := field.NewPath("status")
	switch {
	case isTerminal(old):
		return sameStatus(req.Status, old.Status, statusPath, "immutable after PodCertificateRequest is issued, denied, or failed")
	case hasCondition(req, certificatesv1.PodCertificateRequestConditionTypeDenied), hasCondition(req, certificatesv1.PodCertificateRequestConditionTypeFailed):
		want := certificatesv1.PodCertificateRequestStatus{Conditions: req.Status.Conditions}
		return sameStatus(req.Status, want, statusPath, "non-condition status fields must be empty when denying or failing the PodCertificateRequest")
	case hasCondition(req, certificatesv1.PodCertificateRequestConditionTypeIssued):
		return validateIssued(req, old, now)
	}
	return sameStatus(req.Status, old.Status, statusPath, `status is immutable unless transitioning to "Issued", "Denied", or "Failed"`)
}

// validateIssued checks an issued certificate chain against the request.
func validateIssued(req, old *certificatesv1.PodCertificateRequest, now time.Time) field.ErrorList {
	chain := req.Status.CertificateChain
	if len(chain) > MaxCertificateChainSize {
		return field.ErrorList{field.TooLong(certChainPath, "", MaxCertificateChainSize)}
	}
	leafBlock, rest := pem.Decode([]byte(chain))
	switch {
	case leafBlock == nil:
		return field.ErrorList{field.Invalid(certChainPath, chain, "issued certificate chain must contain at least one certificate")}
	case leafBlock.Type != "CERTIFICATE":
		return field.ErrorList{field.Invalid(certChainPath, chain, "issued certificate chain must consist entirely of CERTIFICATE PEM blocks")}
	}
	leaf, err := x509.ParseCertificate(leafBlock.Bytes)
	if err != nil {
		return field.ErrorList{field.Invalid(certChainPath, chain, "leaf certificate does not parse as valid X.509")}
	}
	allErrs := leafNameErrors(leaf)
	if csr, err := x509.ParseCertificateRequest(old.Spec.StubPKCS10Request); err != nil || !publicKeysEqual(csr.PublicKey, leaf.PublicKey) {
		return append(allErrs, field.Invalid(certChainPath, chain, "leaf certificate was not issued to the requested public key"))
	}
	if errs := validateIssuedTimes(req, leaf, now); len(errs) > 0 {
		return append(allErrs, errs...)
	}
	// The rest of the chain cannot be verified without its root, but each
	// block must still be a certificate.
	for {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			return append(allErrs, field.Invalid(certChainPath, chain, "issued certificate chain must consist entirely of CERTFICATE PEM blocks"))
		}
		if _, err := x509.ParseCertificate(b.Bytes); err != nil {
			return append(allErrs, field.Invalid(certChainPath, chain, "intermediate certificate does not parse as valid X.509"))
		}
	}
	return allErrs
}

// validateIssuedTimes checks notBefore, notAfter and beginRefreshAt
// against the leaf, the clock and the lifetime the request allows.
func validateIssuedTimes(req *certificatesv1.PodCertificateRequest, leaf *x509.Certificate, now time.Time) field.ErrorList {
	s := req.Status
	var allErrs field.ErrorList
	if s.NotBefore == nil {
		allErrs = append(allErrs, field.Required(notBeforePath, "must be present and consistent with the issued certificate"))
	}
	if s.NotAfter == nil {
		allErrs = append(allErrs, field.Required(notAfterPath, "must be present and consistent with the issued certificate"))
	}
	if s.BeginRefreshAt == nil {
		allErrs = append(allErrs, field.Required(beginRefreshPath, "must be present and in the range [notbefore+10min, notafter-10min]"))
	}
	if len(allErrs) > 0 {
		return allErrs
	}
	lifetime := leaf.NotAfter.Sub(leaf.NotBefore)
	maxLifetime := time.Duration(*req.Spec.MaxExpirationSeconds) * time.Second
	for _, rule := range []struct {
		broken bool
		path   *field.Path
		value  any
		msg    string
	}{
		{!s.NotBefore.Time.Equal(leaf.NotBefore), notBeforePath, s.NotBefore.Time, "must be set to the NotBefore time encoded in the leaf certificate"},
		{!near(s.NotBefore.Time, now, 5*time.Minute), notBeforePath, s.NotBefore.Time, "must be set to within 5 minutes of kube-apiserver's current time"},
		{!s.NotAfter.Time.Equal(leaf.NotAfter), notAfterPath, s.NotAfter.Time, "must be set to the NotAfter time encoded in the leaf certificate"},
		{lifetime < time.Hour, certChainPath, lifetime, "leaf certificate lifetime must be >= 1 hour"},
		{lifetime > maxLifetime, certChainPath, lifetime, fmt.Sprintf("leaf certificate lifetime must be <= spec.maxExpirationSeconds (%v)", *req.Spec.MaxExpirationSeconds)},
		{s.BeginRefreshAt.Time.Before(s.NotBefore.Time.Add(10 * time.Minute)), beginRefreshPath, s.BeginRefreshAt.Time, "must be at least 10 minutes after status.notBefore"},
		{s.BeginRefreshAt.Time.After(s.NotAfter.Time.Add(-10 * time.Minute)), beginRefreshPath, s.BeginRefreshAt.Time, "must be at least 10 minutes before status.notAfter"},
	} {
		// Like upstream, report the first broken rule only.
		if rule.broken {
			return field.ErrorList{field.Invalid(rule.path, rule.value, rule.msg)}
		}
	}
	return nil
}

// leafNameErrors rejects malformed DNS names and email addresses.
func leafNameErrors(leaf *x509.Certificate) field.ErrorList {
	var allErrs field.ErrorList
	for _, name := range leaf.DNSNames {
		if name == "" {
			allErrs = append(allErrs, field.Invalid(certChainPath, name, "leaf certificate should not contain empty DNSName"))
		}
		if strings.Contains(name, "..") {
			allErrs = append(allErrs, field.Invalid(certChainPath, name, "leaf certificate's DNSName should not contain '..'"))
		}
		if strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".") {
			allErrs = append(allErrs, field.Invalid(certChainPath, name, "leaf certificate's DNSName should not start or end with '.'"))
		}
	}
	for _, addr := range leaf.EmailAddresses {
		if _, err := mail.ParseAddress(addr); err != nil {
			allErrs = append(allErrs, field.Invalid(certChainPath, addr, "leaf certificate should not contain invalid EmailAddress"))
		}
	}
	return allErrs
}

func publicKeysEqual(a, b crypto.PublicKey) bool {
	k, ok := a.(interface{ Equal(crypto.PublicKey) bool })
	return ok && k.Equal(b)
}

func hasCondition(req *certificatesv1.PodCertificateRequest, t string) bool {
	return meta.IsStatusConditionTrue(req.Status.Conditions, t)
}

func isTerminal(req *certificatesv1.PodCertificateRequest) bool {
	for _, t := range terminalConditions {
		if hasCondition(req, t) {
			return true
		}
	}
	return false
}

func sameStatus(got, want certificatesv1.PodCertificateRequestStatus, fldPath *field.Path, detail string) field.ErrorList {
	if !apiequality.Semantic.DeepEqual(got, want) {
		return field.ErrorList{field.Invalid(fldPath, field.OmitValueType{}, detail)}
	}
	return nil
}

func near(a, b time.Time, skew time.Duration) bool {
	return a.After(b.Add(-skew)) && a.Before(b.Add(skew))
}
