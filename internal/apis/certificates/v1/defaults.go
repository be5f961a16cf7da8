package v1

import (
	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// DefaultMaxExpirationSeconds is a pod certificate request's
// spec.maxExpirationSeconds when it names none (24 hours).
const DefaultMaxExpirationSeconds int32 = 86400

// RegisterDefaults adds the defaulting functions of the group version's
// types to scheme: a pod certificate request's maxExpirationSeconds.
// Unlike v1beta1, a v1 CSR must name its signer and usages, so CSRs have
// none.
func RegisterDefaults(scheme *runtime.Scheme) error {
	scheme.AddTypeDefaultingFunc(&certificatesv1.PodCertificateRequest{}, func(obj any) {
		SetDefaultsPodCertificateRequestSpec(&obj.(*certificatesv1.PodCertificateRequest).Spec)
	})
	scheme.AddTypeDefaultingFunc(&certificatesv1.PodCertificateRequestList{}, func(obj any) {
		list := obj.(*certificatesv1.PodCertificateRequestList)
		for i := range list.Items {
			SetDefaultsPodCertificateRequestSpec(&list.Items[i].Spec)
		}
	})
	return nil
}

// SetDefaultsPodCertificateRequestSpec fills maxExpirationSeconds.
func SetDefaultsPodCertificateRequestSpec(spec *certificatesv1.PodCertificateRequestSpec) {
	if spec.MaxExpirationSeconds == nil {
		v := DefaultMaxExpirationSeconds
		spec.MaxExpirationSeconds = &v
	}
}
