// Package certificatesigningrequest is the REST storage of
// certificates.k8s.io/v1 certificate signing requests and their status
// and approval subresources. The requester's identity is recorded on
// create; approval and issuance each have their own write path.
package certificatesigningrequest

import (
	"context"
	"fmt"
	"maps"

	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/certificates/validation"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy writes the main resource: cluster-scoped; the spec's identity
// fields come from the requesting user, and after create neither spec nor
// status change through it.
type Strategy struct {
	rest.DefaultStrategy
	// Now stamps condition times; nil means metav1.Now.
	Now func() metav1.Time
}

var (
	_ rest.RESTCreateStrategy = Strategy{}
	_ rest.RESTUpdateStrategy = StatusStrategy{}
	_ rest.RESTUpdateStrategy = ApprovalStrategy{}
)

// NewStrategy returns the CSR strategy; typer is the scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: typer}}
}

// NamespaceScoped is false.
func (Strategy) NamespaceScoped() bool { return false }

// PrepareForCreate replaces whatever identity the client sent with the
// authenticated user's (none when the request has no user) and clears
// the status: a CSR cannot be created approved.
func (Strategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	csr := obj.(*certificatesv1.CertificateSigningRequest)
	csr.Spec.Username, csr.Spec.UID, csr.Spec.Groups, csr.Spec.Extra = "", "", nil, nil
	if u, ok := request.UserFrom(ctx); ok {
		csr.Spec.Username = u.GetName()
		csr.Spec.UID = u.GetUID()
		csr.Spec.Groups = u.GetGroups()
		if extra := u.GetExtra(); len(extra) > 0 {
			csr.Spec.Extra = make(map[string]certificatesv1.ExtraValue, len(extra))
			for k, v := range extra {
				csr.Spec.Extra[k] = certificatesv1.ExtraValue(v)
			}
		}
	}
	csr.Status = certificatesv1.CertificateSigningRequestStatus{}
}

// PrepareForUpdate keeps the stored spec and status: only metadata
// changes through the main resource.
func (Strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	csr, oldCSR := obj.(*certificatesv1.CertificateSigningRequest), old.(*certificatesv1.CertificateSigningRequest)
	csr.Spec = oldCSR.Spec
	csr.Status = oldCSR.Status
}

// Validate checks a new CSR.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateCertificateSigningRequestCreate(obj.(*certificatesv1.CertificateSigningRequest))
}

// ValidateUpdate checks a main-resource update.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateCertificateSigningRequestUpdate(obj.(*certificatesv1.CertificateSigningRequest), old.(*certificatesv1.CertificateSigningRequest))
}

// GetResetFields: main-resource writes ignore spec and status.
func (Strategy) GetResetFields() map[string]struct{} {
	return map[string]struct{}{"spec": {}, "status": {}}
}

func (s Strategy) now() metav1.Time {
	if s.Now != nil {
		return s.Now()
	}
	return metav1.Now()
}

// StatusStrategy writes certificatesigningrequests/status: signers set
// the certificate and their conditions; the spec is kept.
type StatusStrategy struct {
	Strategy
}

// PrepareForUpdate keeps the spec and stamps condition times.
func (s StatusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	csr, oldCSR := obj.(*certificatesv1.CertificateSigningRequest), old.(*certificatesv1.CertificateSigningRequest)
	csr.Spec = oldCSR.Spec
	populateConditionTimestamps(csr, oldCSR, s.now())
}

// ValidateUpdate allows the certificate to be set once.
func (StatusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateCertificateSigningRequestStatusUpdate(obj.(*certificatesv1.CertificateSigningRequest), old.(*certificatesv1.CertificateSigningRequest))
}

// GetResetFields: status writes ignore spec.
func (StatusStrategy) GetResetFields() map[string]struct{} {
	return map[string]struct{}{"spec": {}}
}

// ApprovalStrategy writes certificatesigningrequests/approval: only the
// conditions change.
type ApprovalStrategy struct {
	Strategy
}

// PrepareForUpdate keeps the spec and certificate and stamps condition
// times.
func (s ApprovalStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	csr, oldCSR := obj.(*certificatesv1.CertificateSigningRequest), old.(*certificatesv1.CertificateSigningRequest)
	csr.Spec = oldCSR.Spec
	csr.Status.Certificate = oldCSR.Status.Certificate
	populateConditionTimestamps(csr, oldCSR, s.now())
}

// ValidateUpdate allows Approved and Denied conditions to be added.
func (ApprovalStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateCertificateSigningRequestApprovalUpdate(obj.(*certificatesv1.CertificateSigningRequest), old.(*certificatesv1.CertificateSigningRequest))
}

// GetResetFields: approval writes ignore spec and the certificate.
func (ApprovalStrategy) GetResetFields() map[string]struct{} {
	return map[string]struct{}{"spec": {}, "status.certificate": {}}
}

// populateConditionTimestamps sets lastUpdateTime to now where missing,
// and lastTransitionTime to the stored one of the same type and status,
// or now.
func populateConditionTimestamps(csr, old *certificatesv1.CertificateSigningRequest, now metav1.Time) {
	for i := range csr.Status.Conditions {
		c := &csr.Status.Conditions[i]
		if c.LastUpdateTime.IsZero() {
			c.LastUpdateTime = now
		}
		if !c.LastTransitionTime.IsZero() {
			continue
		}
		c.LastTransitionTime = now
		for _, oc := range old.Status.Conditions {
			if oc.Type == c.Type && oc.Status == c.Status && !oc.LastTransitionTime.IsZero() {
				c.LastTransitionTime = oc.LastTransitionTime
				break
			}
		}
	}
}

// GetAttrs returns a CSR's labels and selectable fields: metadata.name
// and spec.signerName.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	csr, ok := obj.(*certificatesv1.CertificateSigningRequest)
	if !ok {
		return nil, nil, fmt.Errorf("not a certificate signing request: %T", obj)
	}
	ls, fs, err := generic.DefaultClusterScopedAttr(csr)
	if err != nil {
		return nil, nil, err
	}
	maps.Copy(fs, fields.Set{"spec.signerName": csr.Spec.SignerName})
	return ls, fs, nil
}
