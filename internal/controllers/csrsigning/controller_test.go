package csrsigning

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"testing"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/kapi-dev/kapi/internal/controllers/certificates"
	"github.com/kapi-dev/kapi/internal/controllers/certificates/certtest"
	"github.com/kapi-dev/kapi/internal/pki"
)

var now = time.Date(2027, 3, 4, 5, 6, 7, 0, time.UTC)

func testCA(t *testing.T, notAfter time.Time) *CA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "signer"},
		NotBefore: now.Add(-time.Hour), NotAfter: notAfter, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return &CA{Cert: cert, Key: key, Duration: DefaultDuration}
}

func ptr[T any](v T) *T { return &v }

// TestDuration pins spec.expirationSeconds: honoured when shorter than
// the signer's limit, never under ten minutes.
func TestDuration(t *testing.T) {
	for _, tt := range []struct {
		seconds *int32
		want    time.Duration
	}{
		{nil, DefaultDuration},
		{ptr(int32(3600)), time.Hour},
		{ptr(int32(600)), 10 * time.Minute},
		{ptr(int32(60)), 10 * time.Minute},
		{ptr(int32(2 * 365 * 24 * 3600)), DefaultDuration},
	} {
		if got := Duration(DefaultDuration, tt.seconds); got != tt.want {
			t.Errorf("Duration(%v) = %v, want %v", tt.seconds, got, tt.want)
		}
	}
}

func csr(t *testing.T, signer string, rt certtest.RequestTemplate, usages []certificatesv1.KeyUsage, conds ...certificatesv1.RequestConditionType) *certificatesv1.CertificateSigningRequest {
	t.Helper()
	req, err := certtest.NewRequestPEM(rt)
	if err != nil {
		t.Fatal(err)
	}
	c := &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: "r"},
		Spec: certificatesv1.CertificateSigningRequestSpec{Request: req, SignerName: signer, Usages: usages, ExpirationSeconds: ptr(int32(3600))}}
	for _, typ := range conds {
		c.Status.Conditions = append(c.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{Type: typ, Status: corev1.ConditionTrue})
	}
	return c
}

// TestSync pins which requests get a certificate, which fail with
// SignerValidationFailure, and which are left alone.
func TestSync(t *testing.T) {
	clientUsages := []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth}
	alice := certtest.RequestTemplate{CommonName: "alice", Organizations: []string{"devs"}}
	node := certtest.RequestTemplate{CommonName: "system:node:n1", Organizations: []string{"system:nodes"}}
	approved, denied, failed := certificatesv1.CertificateApproved, certificatesv1.CertificateDenied, certificatesv1.CertificateFailed
	tests := []struct {
		name       string
		csr        *certificatesv1.CertificateSigningRequest
		wantSigned bool
		wantFailed string
	}{
		{name: "approved client", csr: csr(t, certificatesv1.KubeAPIServerClientSignerName, alice, clientUsages, approved), wantSigned: true},
		{name: "approved kubelet client", csr: csr(t, certificatesv1.KubeAPIServerClientKubeletSignerName, node,
			[]certificatesv1.KeyUsage{"digital signature", "client auth"}, approved), wantSigned: true},
		{name: "pending", csr: csr(t, certificatesv1.KubeAPIServerClientSignerName, alice, clientUsages)},
		{name: "denied", csr: csr(t, certificatesv1.KubeAPIServerClientSignerName, alice, clientUsages, approved, denied)},
		{name: "already failed", csr: csr(t, certificatesv1.KubeAPIServerClientSignerName, alice, clientUsages, approved, failed)},
		{name: "legacy-unknown", csr: csr(t, "kubernetes.io/legacy-unknown", alice, clientUsages, approved)},
		{name: "other signer", csr: csr(t, "example.com/signer", alice, clientUsages, approved)},
		{name: "server usage for a client signer", csr: csr(t, certificatesv1.KubeAPIServerClientSignerName, alice,
			[]certificatesv1.KeyUsage{certificatesv1.UsageServerAuth}, approved), wantFailed: "invalid usage for client certificate: server auth"},
		{name: "kubelet client not from a node", csr: csr(t, certificatesv1.KubeAPIServerClientKubeletSignerName, alice,
			[]certificatesv1.KeyUsage{"digital signature", "client auth"}, approved), wantFailed: "subject organization is not system:nodes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := fake.NewClientset(tt.csr)
			f := informers.NewSharedInformerFactory(client, 0)
			csrs := f.Certificates().V1().CertificateSigningRequests()
			ca := testCA(t, now.Add(24*time.Hour))
			c, err := New(client, csrs, ca, testingclock.NewFakeClock(now), nil)
			if err != nil {
				t.Fatal(err)
			}
			_ = csrs.Informer().GetIndexer().Add(tt.csr)
			if err := c.sync(context.Background(), "r"); err != nil {
				t.Fatal(err)
			}
			got, err := client.CertificatesV1().CertificateSigningRequests().Get(context.Background(), "r", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if signed := len(got.Status.Certificate) > 0; signed != tt.wantSigned {
				t.Fatalf("signed = %v, want %v", signed, tt.wantSigned)
			}
			var failedMsg string
			for _, cond := range got.Status.Conditions {
				if cond.Type == failed && cond.Reason == "SignerValidationFailure" {
					failedMsg = cond.Message
				}
			}
			if failedMsg != tt.wantFailed {
				t.Errorf("failure %q, want %q", failedMsg, tt.wantFailed)
			}
			if !tt.wantSigned {
				return
			}
			certs, err := pki.ParseCertsPEM(got.Status.Certificate)
			if err != nil {
				t.Fatal(err)
			}
			roots := x509.NewCertPool()
			roots.AddCert(ca.Cert)
			if _, err := certs[0].Verify(x509.VerifyOptions{Roots: roots, CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
				t.Errorf("certificate does not verify against the CA: %v", err)
			}
			// An hour is short: not backdated at the end.
			if !certs[0].NotAfter.Equal(now.Add(time.Hour)) || !certs[0].NotBefore.Equal(now.Add(-5*time.Minute)) {
				t.Errorf("validity %v..%v, want %v..%v", certs[0].NotBefore, certs[0].NotAfter, now.Add(-5*time.Minute), now.Add(time.Hour))
			}
		})
	}
}

// TestSignCappedByCA: a certificate never outlives its signer.
func TestSignCappedByCA(t *testing.T) {
	ca := testCA(t, now.Add(48*time.Hour))
	p, err := certtest.NewRequestPEM(certtest.RequestTemplate{CommonName: "a"})
	if err != nil {
		t.Fatal(err)
	}
	req, err := certificates.ParseCSR(p)
	if err != nil {
		t.Fatal(err)
	}
	out, err := ca.Sign(req, []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth}, DefaultDuration, now)
	if err != nil {
		t.Fatal(err)
	}
	certs, _ := pki.ParseCertsPEM(out)
	if !certs[0].NotAfter.Equal(ca.Cert.NotAfter) {
		t.Errorf("NotAfter %v, want the CA's %v", certs[0].NotAfter, ca.Cert.NotAfter)
	}
}
