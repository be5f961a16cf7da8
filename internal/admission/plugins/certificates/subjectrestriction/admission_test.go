package subjectrestriction

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"testing"

	certificatesv1 "k8s.io/api/certificates/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/admission"
)

func request(t *testing.T, orgs ...string) []byte {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "x", Organization: orgs}}, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		signer  string
		request []byte
		message string
	}{
		{"system:masters for the client signer", certificatesv1.KubeAPIServerClientSignerName, request(t, "dev", "system:masters"),
			`certificatesigningrequests.certificates.k8s.io "req" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed`},
		{"other groups", certificatesv1.KubeAPIServerClientSignerName, request(t, "dev"), ""},
		{"other signers may", "example.com/any", request(t, "system:masters"), ""},
		{"not a CSR", certificatesv1.KubeAPIServerClientSignerName, []byte("-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n"),
			`certificatesigningrequests.certificates.k8s.io "req" is forbidden: failed to parse CSR: PEM block type must be CERTIFICATE REQUEST`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			csr := &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: "req"},
				Spec: certificatesv1.CertificateSigningRequestSpec{SignerName: tt.signer, Request: tt.request}}
			a := &admission.Attributes{Name: "req", Operation: admission.Create,
				Resource: certificatesv1.SchemeGroupVersion.WithResource("certificatesigningrequests"), Object: csr}
			err := Plugin{}.Validate(context.Background(), a)
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
