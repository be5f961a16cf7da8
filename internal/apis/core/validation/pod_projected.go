package validation

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Bounds on a podCertificate projection's maxExpirationSeconds, as
// upstream: at least an hour; at most 24 hours for kubernetes.io signers
// and 91 days for others.
const (
	podCertificateMinMaxExpirationSeconds           = 3600
	podCertificateKubernetesMaxMaxExpirationSeconds = 86400
	podCertificateMaxMaxExpirationSeconds           = 91 * 86400
)

// podCertificateKeyTypes are the key types a podCertificate may ask for.
var podCertificateKeyTypes = []string{"RSA3072", "RSA4096", "ECDSAP256", "ECDSAP384", "ECDSAP521", "ED25519"}

// projectedPaths reports a file path that two sources of one projected
// volume both write, as upstream does: on the volume, naming the source.
type projectedPaths struct {
	seen    sets.Set[string]
	fldPath *field.Path
}

func (p *projectedPaths) add(path string, name any) field.ErrorList {
	if path == "" {
		return nil
	}
	if p.seen.Has(path) {
		return field.ErrorList{field.Invalid(p.fldPath, name, "conflicting duplicate paths")}
	}
	p.seen.Insert(path)
	return nil
}

func validatePodClusterTrustBundleProjection(b *corev1.ClusterTrustBundleProjection, paths *projectedPaths, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	switch {
	case b.Name != nil && b.SignerName != nil:
		allErrs = append(allErrs, field.Invalid(fldPath, b, "only one of name and signerName may be used"))
	case b.Name != nil:
		if *b.Name == "" {
			allErrs = append(allErrs, field.Required(fldPath.Child("name"), "must be a valid object name"))
		}
		if b.LabelSelector != nil {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("labelSelector"), b.LabelSelector, "labelSelector must be unset if name is specified"))
		}
	case b.SignerName != nil:
		allErrs = append(allErrs, validateProjectedSignerName(*b.SignerName, fldPath.Child("signerName"))...)
		allErrs = append(allErrs, metav1validation.ValidateLabelSelector(b.LabelSelector,
			metav1validation.LabelSelectorValidationOptions{}, fldPath.Child("labelSelector"))...)
	default:
		allErrs = append(allErrs, field.Required(fldPath, "either name or signerName must be specified"))
	}
	if b.Path == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("path"), ""))
	} else {
		allErrs = append(allErrs, validatePodRelativePath(b.Path, fldPath.Child("path"))...)
	}
	return append(allErrs, paths.add(b.Path, b.Path)...)
}

func validatePodCertificateProjection(pc *corev1.PodCertificateProjection, paths *projectedPaths, fldPath *field.Path) field.ErrorList {
	allErrs := validateProjectedSignerName(pc.SignerName, fldPath.Child("signerName"))
	found := false
	for _, k := range podCertificateKeyTypes {
		found = found || pc.KeyType == k
	}
	if !found {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("keyType"), pc.KeyType, podCertificateKeyTypes))
	}
	if s := pc.MaxExpirationSeconds; s != nil {
		if *s < podCertificateMinMaxExpirationSeconds {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("maxExpirationSeconds"), *s,
				fmt.Sprintf("if provided, maxExpirationSeconds must be >= %d", podCertificateMinMaxExpirationSeconds)))
		}
		upper := podCertificateMaxMaxExpirationSeconds
		if strings.HasPrefix(pc.SignerName, "kubernetes.io/") {
			upper = podCertificateKubernetesMaxMaxExpirationSeconds
		}
		if *s > int32(upper) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("maxExpirationSeconds"), *s,
				fmt.Sprintf("if provided, maxExpirationSeconds must be <= %d", upper)))
		}
	}
	files := []struct {
		name, path string
	}{
		{"credentialBundlePath", pc.CredentialBundlePath},
		{"keyPath", pc.KeyPath},
		{"certificateChainPath", pc.CertificateChainPath},
	}
	set := 0
	for _, f := range files {
		if f.path == "" {
			continue
		}
		set++
		allErrs = append(allErrs, validatePodRelativePath(f.path, fldPath.Child(f.name))...)
		allErrs = append(allErrs, paths.add(f.path, f.path)...)
	}
	if set == 0 {
		allErrs = append(allErrs, field.Required(fldPath, "specify at least one of credentialBundlePath, keyPath, and certificateChainPath"))
	}
	return allErrs
}

// validateProjectedSignerName: a signer is "<domain>/<name>"; the
// certificates group checks its parts in detail.
func validateProjectedSignerName(name string, fldPath *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	if domain, path, ok := strings.Cut(name, "/"); !ok || domain == "" || path == "" || strings.Contains(path, "/") {
		return field.ErrorList{field.Invalid(fldPath, name, "must be a fully qualified domain and path of the form 'example.com/signer-name'")}
	}
	return nil
}
