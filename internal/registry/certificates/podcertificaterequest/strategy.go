// Package podcertificaterequest is the REST storage of
// certificates.k8s.io/v1 pod certificate requests and their status
// subresource: kubelet asks a signer for a pod's certificate, the signer
// answers in the status once, and nothing changes after.
package podcertificaterequest

import (
	"context"
	"fmt"
	"maps"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/certificates/validation"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy writes the main resource: namespaced, the status dropped on
// create and kept on update, the spec immutable. Like upstream it sets no
// generation.
type Strategy struct {
	rest.StatusOwnedStrategy
}

// StatusStrategy writes podcertificaterequests/status: the stored spec is
// kept and the status rules checked against Now.
type StatusStrategy struct {
	Strategy
	// Now is the server's clock; nil means time.Now.
	Now func() time.Time
}

var (
	_ rest.RESTCreateStrategy  = Strategy{}
	_ rest.ResetFieldsStrategy = Strategy{}
	_ rest.RESTUpdateStrategy  = StatusStrategy{}
	_ rest.ResetFieldsStrategy = StatusStrategy{}
)

// NewStrategy returns the strategy; typer is the scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.StatusOwnedStrategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: typer}}}
}

// NamespaceScoped is true.
func (Strategy) NamespaceScoped() bool { return true }

// Validate checks a new request.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidatePodCertificateRequestCreate(obj.(*certificatesv1.PodCertificateRequest))
}

// ValidateUpdate allows metadata changes only.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidatePodCertificateRequestUpdate(obj.(*certificatesv1.PodCertificateRequest), old.(*certificatesv1.PodCertificateRequest))
}

// PrepareForUpdate keeps the stored spec and the metadata a status write
// may not change.
func (StatusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	req, oldReq := obj.(*certificatesv1.PodCertificateRequest), old.(*certificatesv1.PodCertificateRequest)
	req.Spec = oldReq.Spec
	metav1.ResetObjectMetaForStatus(req, oldReq)
}

// ValidateUpdate checks the status transition.
func (s StatusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	return validation.ValidatePodCertificateRequestStatusUpdate(obj.(*certificatesv1.PodCertificateRequest), old.(*certificatesv1.PodCertificateRequest), now())
}

// GetResetFields: status writes ignore spec.
func (StatusStrategy) GetResetFields() map[string]struct{} {
	return map[string]struct{}{"spec": {}}
}

// GetAttrs returns a request's labels and selectable fields: the
// metadata ones, spec.signerName, spec.podName and spec.nodeName.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	req, ok := obj.(*certificatesv1.PodCertificateRequest)
	if !ok {
		return nil, nil, fmt.Errorf("not a pod certificate request: %T", obj)
	}
	ls, fs, err := generic.DefaultNamespaceScopedAttr(req)
	if err != nil {
		return nil, nil, err
	}
	maps.Copy(fs, fields.Set{
		"spec.signerName": req.Spec.SignerName,
		"spec.podName":    req.Spec.PodName,
		"spec.nodeName":   string(req.Spec.NodeName),
	})
	return ls, fs, nil
}
