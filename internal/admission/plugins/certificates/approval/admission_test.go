package approval

import (
	"context"
	"testing"

	certificatesv1 "k8s.io/api/certificates/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

type allow map[string]bool

func (a allow) Authorize(_ context.Context, at authorizer.Attributes) (authorizer.Decision, string, error) {
	if at.Resource == "signers" && a[at.Verb+" "+at.Name] {
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionNoOpinion, "", nil
}

func TestValidate(t *testing.T) {
	csr := func(signer string) *certificatesv1.CertificateSigningRequest {
		return &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: "req"}, Spec: certificatesv1.CertificateSigningRequestSpec{SignerName: signer}}
	}
	tests := []struct {
		name        string
		allow       allow
		subresource string
		old, obj    *certificatesv1.CertificateSigningRequest
		message     string
	}{
		{"allowed by name", allow{"approve example.com/a": true}, "approval", csr("example.com/a"), csr("example.com/a"), ""},
		{"allowed by domain", allow{"approve example.com/*": true}, "approval", csr("example.com/a"), csr("example.com/a"), ""},
		{"denied", allow{"sign example.com/a": true}, "approval", csr("example.com/a"), csr("example.com/a"),
			`certificatesigningrequests.certificates.k8s.io "req" is forbidden: user not permitted to approve requests with signerName "example.com/a"`},
		{"checked against the stored signer", allow{"approve mine.com/a": true}, "approval", csr("example.com/a"), csr("mine.com/a"),
			`certificatesigningrequests.certificates.k8s.io "req" is forbidden: user not permitted to approve requests with signerName "example.com/a"`},
		{"other subresources pass", allow{}, "status", csr("example.com/a"), csr("example.com/a"), ""},
	}
	p, err := New(nil)
	if err == nil || err.Error() != "CertificateApproval requires an authorizer" || p != nil {
		t.Fatalf("New(nil) = %v, %v", p, err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := New(tt.allow)
			a := &admission.Attributes{Name: "req", Operation: admission.Update, Subresource: tt.subresource,
				Resource: certificatesv1.SchemeGroupVersion.WithResource("certificatesigningrequests"),
				Object:   tt.obj, OldObject: tt.old, UserInfo: &user.DefaultInfo{Name: "bob"}}
			err := p.Validate(context.Background(), a)
			if tt.message == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !apierrors.IsForbidden(err) || err.Error() != tt.message {
				t.Fatalf("got %v, want %s", err, tt.message)
			}
		})
	}
}
