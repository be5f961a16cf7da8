package validation

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"strings"

	certificatesv1 "k8s.io/api/certificates/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

// MaxTrustBundleSize is the largest spec.trustBundle kube-apiserver
// accepts.
const MaxTrustBundleSize = 1 * 1024 * 1024

// omitted stands for PEM data in error values, as upstream writes it.
const omitted = "<value omitted>"

// ClusterTrustBundleName returns the name rule of a bundle for signerName:
// a bundle of a signer is named "<signer with / as :>:<subdomain>", one
// without a signer must not contain ":".
func ClusterTrustBundleName(signerName string) apimachineryvalidation.ValidateNameFunc {
	return func(name string, prefix bool) []string {
		if signerName == "" {
			if strings.Contains(name, ":") {
				return []string{`ClusterTrustBundle without signer name must not have ":" in its name`}
			}
			return apimachineryvalidation.NameIsDNSSubdomain(name, prefix)
		}
		want := strings.ReplaceAll(signerName, "/", ":") + ":"
		if !strings.HasPrefix(name, want) {
			return []string{fmt.Sprintf("ClusterTrustBundle for signerName %s must be named with prefix %s", signerName, want)}
		}
		return apimachineryvalidation.NameIsDNSSubdomain(strings.TrimPrefix(name, want), prefix)
	}
}

// ValidateClusterTrustBundle checks a new bundle: its name against its
// signer, the signer name, and the trust anchors.
func ValidateClusterTrustBundle(b *certificatesv1.ClusterTrustBundle) field.ErrorList {
	return validateClusterTrustBundle(b, true)
}

func validateClusterTrustBundle(b *certificatesv1.ClusterTrustBundle, parseBundle bool) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&b.ObjectMeta, false, ClusterTrustBundleName(b.Spec.SignerName), field.NewPath("metadata"))
	if b.Spec.SignerName != "" {
		allErrs = append(allErrs, ValidateSignerName(field.NewPath("spec", "signerName"), b.Spec.SignerName)...)
	}
	if parseBundle {
		allErrs = append(allErrs, validateTrustBundle(field.NewPath("spec", "trustBundle"), b.Spec.TrustBundle)...)
	}
	return allErrs
}

// ValidateClusterTrustBundleUpdate checks an update: an unchanged bundle
// is not parsed again (so a stricter parser cannot strand stored
// objects), and the signer name is immutable.
func ValidateClusterTrustBundleUpdate(b, old *certificatesv1.ClusterTrustBundle) field.ErrorList {
	allErrs := validateClusterTrustBundle(b, b.Spec.TrustBundle != old.Spec.TrustBundle)
	allErrs = append(allErrs, corevalidation.ValidateObjectMetaUpdate(&b.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
	return append(allErrs, apimachineryvalidation.ValidateImmutableField(b.Spec.SignerName, old.Spec.SignerName, field.NewPath("spec", "signerName"))...)
}

// validateTrustBundle requires one or more distinct CA certificates in
// header-less CERTIFICATE blocks.
func validateTrustBundle(fldPath *field.Path, in string) field.ErrorList {
	if len(in) > MaxTrustBundleSize {
		return field.ErrorList{field.TooLong(fldPath, "", MaxTrustBundleSize)}
	}
	var allErrs field.ErrorList
	seen := map[string][]int{}
	rest := []byte(in)
	for i := 0; ; i++ {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if msg := checkTrustAnchor(b); msg != "" {
			allErrs = append(allErrs, field.Invalid(fldPath, omitted, fmt.Sprintf("entry %d %s", i, msg)))
			continue
		}
		seen[string(b.Bytes)] = append(seen[string(b.Bytes)], i)
	}
	// A malformed block already explains the problem.
	if len(allErrs) > 0 {
		return allErrs
	}
	if len(seen) == 0 {
		allErrs = append(allErrs, field.Invalid(fldPath, omitted, "at least one trust anchor must be provided"))
	}
	for _, indices := range seen {
		if len(indices) > 1 {
			allErrs = append(allErrs, field.Invalid(fldPath, omitted, fmt.Sprintf("duplicate trust anchor (indices %v)", indices)))
		}
	}
	return allErrs
}

// checkTrustAnchor says what is wrong with one block, "" if nothing.
func checkTrustAnchor(b *pem.Block) string {
	if b.Type != "CERTIFICATE" {
		return "has bad block type: " + b.Type
	}
	if len(b.Headers) != 0 {
		return "has PEM block headers"
	}
	cert, err := x509.ParseCertificate(b.Bytes)
	switch {
	case err != nil:
		return "does not parse as X.509"
	case !cert.IsCA:
		return "does not have the CA bit set"
	case !cert.BasicConstraintsValid:
		return "has invalid basic constraints"
	}
	return ""
}
