package signing

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
	csr := func(signer, cert string) *certificatesv1.CertificateSigningRequest {
		c := &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: "req"}, Spec: certificatesv1.CertificateSigningRequestSpec{SignerName: signer}}
		if cert != "" {
			c.Status.Certificate = []byte(cert)
		}
		return c
	}
	tests := []struct {
		name     string
		allow    allow
		old, obj *certificatesv1.CertificateSigningRequest
		message  string
	}{
		{"signer may sign", allow{"sign example.com/a": true}, csr("example.com/a", ""), csr("example.com/a", "cert"), ""},
		{"domain wildcard", allow{"sign example.com/*": true}, csr("example.com/a", ""), csr("example.com/a", "cert"), ""},
		{"not a signer", allow{"approve example.com/a": true}, csr("example.com/a", ""), csr("example.com/a", "cert"),
			`certificatesigningrequests.certificates.k8s.io "req" is forbidden: user not permitted to sign requests with signerName "example.com/a"`},
		{"certificate unchanged", allow{}, csr("example.com/a", "cert"), csr("example.com/a", "cert"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New(tt.allow)
			if err != nil {
				t.Fatal(err)
			}
			a := &admission.Attributes{Name: "req", Operation: admission.Update, Subresource: "status",
				Resource: certificatesv1.SchemeGroupVersion.WithResource("certificatesigningrequests"),
				Object:   tt.obj, OldObject: tt.old, UserInfo: &user.DefaultInfo{Name: "signer"}}
			err = p.Validate(context.Background(), a)
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
