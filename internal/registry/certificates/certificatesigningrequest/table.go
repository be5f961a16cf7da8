package certificatesigningrequest

import (
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME AGE SIGNERNAME REQUESTOR REQUESTEDDURATION CONDITION.
func Table() *printers.Table[*certificatesv1.CertificateSigningRequest] {
	spec := certificatesv1.CertificateSigningRequestSpec{}.SwaggerDoc()
	columns := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		printers.AgeColumn(),
		{Name: "SignerName", Type: "string", Description: spec["signerName"]},
		{Name: "Requestor", Type: "string", Description: spec["request"]},
		{Name: "RequestedDuration", Type: "string", Description: spec["expirationSeconds"]},
		{Name: "Condition", Type: "string", Description: certificatesv1.CertificateSigningRequestStatus{}.SwaggerDoc()["conditions"]},
	}
	return printers.New(columns, func(csr *certificatesv1.CertificateSigningRequest, now time.Time) []any {
		signer := "<none>"
		if csr.Spec.SignerName != "" {
			signer = csr.Spec.SignerName
		}
		requested := "<none>"
		if s := csr.Spec.ExpirationSeconds; s != nil {
			requested = duration.HumanDuration(time.Duration(*s) * time.Second)
		}
		return []any{csr.Name, printers.Age(csr.CreationTimestamp, now), signer, csr.Spec.Username, requested, condition(csr)}
	})
}

// condition summarizes a CSR as kubectl does: Denied, Approved or
// Pending, then ",Failed" and ",Issued" when they apply.
func condition(csr *certificatesv1.CertificateSigningRequest) string {
	var approved, denied, failed bool
	for _, c := range csr.Status.Conditions {
		switch c.Type {
		case certificatesv1.CertificateApproved:
			approved = true
		case certificatesv1.CertificateDenied:
			denied = true
		case certificatesv1.CertificateFailed:
			failed = true
		}
	}
	status := "Pending"
	switch {
	case denied:
		status = "Denied"
	case approved:
		status = "Approved"
	}
	if failed {
		status += ",Failed"
	}
	if len(csr.Status.Certificate) > 0 {
		status += ",Issued"
	}
	return status
}
