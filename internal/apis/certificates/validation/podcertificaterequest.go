package validation

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"fmt"
	"strings"

	certificatesv1 "k8s.io/api/certificates/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

// Limits of a pod certificate request, as kube-apiserver has them.
const (
	// MinMaxExpirationSeconds is the smallest spec.maxExpirationSeconds.
	MinMaxExpirationSeconds = 60 * 60
	// MaxMaxExpirationSeconds is the largest for signers outside
	// kubernetes.io (91 days).
	MaxMaxExpirationSeconds = 91 * 24 * 60 * 60
	// KubernetesMaxMaxExpirationSeconds is the largest for kubernetes.io
	// signers (24 hours).
	KubernetesMaxMaxExpirationSeconds = 24 * 60 * 60
	// MaxCertificateChainSize bounds status.certificateChain.
	MaxCertificateChainSize = 100 * 1024
	// maxUIDLength bounds the pod, service account and node UIDs.
	maxUIDLength = 128
)

// IsKubernetesSignerName says whether a signer is reserved for the
// Kubernetes project.
func IsKubernetesSignerName(name string) bool {
	return strings.HasPrefix(name, "kubernetes.io/")
}

// ValidatePodCertificateRequestCreate checks a new request: the pod,
// service account and node it names, the signer, the lifetime asked for
// and the stub PKCS#10 request that carries the subject public key.
func ValidatePodCertificateRequestCreate(req *certificatesv1.PodCertificateRequest) field.ErrorList {
	spec := field.NewPath("spec")
	allErrs := corevalidation.ValidateObjectMeta(&req.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	allErrs = append(allErrs, ValidateSignerName(spec.Child("signerName"), req.Spec.SignerName)...)
	if req.Spec.UnverifiedUserAnnotations != nil {
		allErrs = append(allErrs, validateUserAnnotations(req.Spec.UnverifiedUserAnnotations, spec.Child("unverifiedUserAnnotations"))...)
	}
	allErrs = append(allErrs, nameErrors(spec.Child("podName"), req.Spec.PodName, apimachineryvalidation.NameIsDNSSubdomain)...)
	allErrs = append(allErrs, uidErrors(spec.Child("podUID"), req.Spec.PodUID)...)
	allErrs = append(allErrs, nameErrors(spec.Child("serviceAccountName"), req.Spec.ServiceAccountName, corevalidation.ValidateServiceAccountName)...)
	allErrs = append(allErrs, uidErrors(spec.Child("serviceAccountUID"), req.Spec.ServiceAccountUID)...)
	allErrs = append(allErrs, nameErrors(spec.Child("nodeName"), string(req.Spec.NodeName), apimachineryvalidation.NameIsDNSSubdomain)...)
	allErrs = append(allErrs, uidErrors(spec.Child("nodeUID"), req.Spec.NodeUID)...)

	if req.Spec.MaxExpirationSeconds == nil {
		return append(allErrs, field.Required(spec.Child("maxExpirationSeconds"), "must be set"))
	}
	maxAllowed := int32(MaxMaxExpirationSeconds)
	if IsKubernetesSignerName(req.Spec.SignerName) {
		maxAllowed = KubernetesMaxMaxExpirationSeconds
	}
	if s := *req.Spec.MaxExpirationSeconds; s < MinMaxExpirationSeconds || s > maxAllowed {
		allErrs = append(allErrs, field.Invalid(spec.Child("maxExpirationSeconds"), s, fmt.Sprintf("must be in the range [%d, %d]", MinMaxExpirationSeconds, maxAllowed)))
	}
	return append(allErrs, validateStubRequest(spec.Child("stubPKCS10Request"), req.Spec.StubPKCS10Request)...)
}

// ValidatePodCertificateRequestUpdate checks a write of the main
// resource: only metadata may change.
func ValidatePodCertificateRequestUpdate(req, old *certificatesv1.PodCertificateRequest) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMetaUpdate(&req.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, apimachineryvalidation.ValidateImmutableField(req.Spec, old.Spec, field.NewPath("spec"))...)
}

// validateStubRequest requires a DER PKCS#10 request whose signature
// verifies and whose key is one kubelet may use: RSA 3072 or 4096, ECDSA
// P-256, P-384 or P-521, or Ed25519.
func validateStubRequest(fldPath *field.Path, der []byte) field.ErrorList {
	if len(der) == 0 {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	csr, err := x509.ParseCertificateRequest(der)
	if err != nil {
		return field.ErrorList{field.Invalid(fldPath, field.OmitValueType{}, "must be a valid DER-encoded PKCS#10 certificate signing request")}
	}
	if err := csr.CheckSignature(); err != nil {
		return field.ErrorList{field.Invalid(fldPath, field.OmitValueType{}, "could not verify the signature of the certificate signing request")}
	}
	switch pub := csr.PublicKey.(type) {
	case ed25519.PublicKey:
	case *ecdsa.PublicKey:
		if pub.Curve != elliptic.P256() && pub.Curve != elliptic.P384() && pub.Curve != elliptic.P521() {
			return field.ErrorList{field.Invalid(fldPath, "curve "+pub.Curve.Params().Name, "elliptic public keys must use curve P256, P384 or P521")}
		}
	case *rsa.PublicKey:
		if bits := pub.Size() * 8; bits != 3072 && bits != 4096 {
			return field.ErrorList{field.Invalid(fldPath, fmt.Sprintf("%d-bit modulus", bits), "RSA keys must have modulus size 3072 or 4096")}
		}
	default:
		return field.ErrorList{field.Invalid(fldPath, field.OmitValueType{}, "unknown public key type; supported types are Ed25519, ECDSA, and RSA")}
	}
	return nil
}

// validateUserAnnotations checks unverifiedUserAnnotations as object
// annotations whose keys must all carry a domain prefix.
func validateUserAnnotations(annotations map[string]string, fldPath *field.Path) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateAnnotations(annotations, fldPath)
	for k := range annotations {
		if !strings.Contains(k, "/") {
			allErrs = append(allErrs, field.Invalid(fldPath, k, `must be a domain-prefixed key (such as "acme.io/foo")`))
		}
	}
	return allErrs
}

func nameErrors(fldPath *field.Path, name string, rule apimachineryvalidation.ValidateNameFunc) field.ErrorList {
	var allErrs field.ErrorList
	for _, msg := range rule(name, false) {
		allErrs = append(allErrs, field.Invalid(fldPath, name, msg))
	}
	return allErrs
}

func uidErrors(fldPath *field.Path, uid types.UID) field.ErrorList {
	switch {
	case uid == "":
		return field.ErrorList{field.Invalid(fldPath, uid, "must not be empty")}
	case len(uid) > maxUIDLength:
		return field.ErrorList{field.TooLong(fldPath, uid, maxUIDLength)}
	}
	return nil
}
