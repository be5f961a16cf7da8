package podcertificaterequest

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func TestGolden(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	m, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	obj := registrytest.Golden(t, scheme, m["podcertificaterequests"].(rest.Creater), "testdata", "minimal")
	if got := obj.(*certificatesv1.PodCertificateRequest).Spec.MaxExpirationSeconds; got == nil || *got != 86400 {
		t.Errorf("maxExpirationSeconds = %v, want the default 86400", got)
	}
}

// stubRequest returns a PKCS#10 request signed by key.
func stubRequest(t *testing.T, key crypto.Signer) []byte {
	t.Helper()
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{}, key)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

func newKey(t *testing.T) ed25519.PrivateKey {
	t.Helper()
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

func valid(t *testing.T, key crypto.Signer) *certificatesv1.PodCertificateRequest {
	return &certificatesv1.PodCertificateRequest{
		ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "default", ResourceVersion: "1"},
		Spec: certificatesv1.PodCertificateRequestSpec{
			SignerName:           "example.com/pods",
			PodName:              "web-0",
			PodUID:               "pod-uid",
			ServiceAccountName:   "default",
			ServiceAccountUID:    "sa-uid",
			NodeName:             "node-1",
			NodeUID:              "node-uid",
			MaxExpirationSeconds: ptr.To[int32](86400),
			StubPKCS10Request:    stubRequest(t, key),
		},
	}
}

func describe(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, string(e.Type)+" "+e.Field)
	}
	return out
}

func TestValidate(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	other := stubRequest(t, newKey(t))
	tests := []struct {
		name   string
		mutate func(*certificatesv1.PodCertificateRequest)
		want   []string
	}{
		{"valid", func(*certificatesv1.PodCertificateRequest) {}, nil},
		{"91 days for another signer", func(r *certificatesv1.PodCertificateRequest) { r.Spec.MaxExpirationSeconds = ptr.To[int32](91 * 86400) }, nil},
		{"too long", func(r *certificatesv1.PodCertificateRequest) {
			r.Spec.MaxExpirationSeconds = ptr.To[int32](91*86400 + 1)
		}, []string{"FieldValueInvalid spec.maxExpirationSeconds"}},
		{"too short", func(r *certificatesv1.PodCertificateRequest) { r.Spec.MaxExpirationSeconds = ptr.To[int32](3599) }, []string{"FieldValueInvalid spec.maxExpirationSeconds"}},
		{"kubernetes.io signer over a day", func(r *certificatesv1.PodCertificateRequest) {
			r.Spec.SignerName = "kubernetes.io/kube-apiserver-client-pod"
			r.Spec.MaxExpirationSeconds = ptr.To[int32](86401)
		}, []string{"FieldValueInvalid spec.maxExpirationSeconds"}},
		{"no pod uid", func(r *certificatesv1.PodCertificateRequest) { r.Spec.PodUID = "" }, []string{"FieldValueInvalid spec.podUID"}},
		{"bad node name", func(r *certificatesv1.PodCertificateRequest) { r.Spec.NodeName = "Node_1" }, []string{"FieldValueInvalid spec.nodeName"}},
		{"no signer", func(r *certificatesv1.PodCertificateRequest) { r.Spec.SignerName = "" }, []string{"FieldValueRequired spec.signerName"}},
		{"not a csr", func(r *certificatesv1.PodCertificateRequest) { r.Spec.StubPKCS10Request = []byte("junk") }, []string{"FieldValueInvalid spec.stubPKCS10Request"}},
		{"bad signature", func(r *certificatesv1.PodCertificateRequest) {
			r.Spec.StubPKCS10Request = append([]byte(nil), other...)
			r.Spec.StubPKCS10Request[len(other)-1] ^= 0xff
		}, []string{"FieldValueInvalid spec.stubPKCS10Request"}},
		{"rsa 2048", func(r *certificatesv1.PodCertificateRequest) { r.Spec.StubPKCS10Request = stubRequest(t, rsaKey) }, []string{"FieldValueInvalid spec.stubPKCS10Request"}},
		{"annotation without domain", func(r *certificatesv1.PodCertificateRequest) {
			r.Spec.UnverifiedUserAnnotations = map[string]string{"foo": "bar", "example.com/ok": "yes"}
		}, []string{"FieldValueInvalid spec.unverifiedUserAnnotations"}},
	}
	s := NewStrategy(registrytest.NewScheme(t))
	for _, tt := range tests {
		r := valid(t, newKey(t))
		tt.mutate(r)
		if diff := cmp.Diff(tt.want, describe(s.Validate(context.Background(), r))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// issue returns a certificate for key valid from notBefore for lifetime,
// PEM-encoded.
func issue(t *testing.T, key crypto.PublicKey, notBefore time.Time, lifetime time.Duration) string {
	t.Helper()
	ca := newKey(t)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "pod"}, NotBefore: notBefore, NotAfter: notBefore.Add(lifetime)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key, ca)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

func condition(t string) []metav1.Condition {
	return []metav1.Condition{{Type: t, Status: metav1.ConditionTrue, Reason: "Test", LastTransitionTime: metav1.Now()}}
}

func TestValidateStatusUpdate(t *testing.T) {
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	key := newKey(t)
	issued := func(pub crypto.PublicKey, lifetime time.Duration) certificatesv1.PodCertificateRequestStatus {
		return certificatesv1.PodCertificateRequestStatus{
			Conditions:       condition(certificatesv1.PodCertificateRequestConditionTypeIssued),
			CertificateChain: issue(t, pub, now, lifetime),
			NotBefore:        ptr.To(metav1.NewTime(now)),
			NotAfter:         ptr.To(metav1.NewTime(now.Add(lifetime))),
			BeginRefreshAt:   ptr.To(metav1.NewTime(now.Add(lifetime / 2))),
		}
	}
	good := issued(key.Public(), 2*time.Hour)
	tests := []struct {
		name     string
		old, new certificatesv1.PodCertificateRequestStatus
		want     []string
	}{
		{"issued", certificatesv1.PodCertificateRequestStatus{}, good, nil},
		{"issued to another key", certificatesv1.PodCertificateRequestStatus{}, issued(newKey(t).Public(), 2*time.Hour), []string{"FieldValueInvalid status.certificateChain"}},
		{"lifetime under an hour", certificatesv1.PodCertificateRequestStatus{}, issued(key.Public(), 30*time.Minute), []string{"FieldValueInvalid status.certificateChain"}},
		{"lifetime over the maximum", certificatesv1.PodCertificateRequestStatus{}, issued(key.Public(), 25*time.Hour), []string{"FieldValueInvalid status.certificateChain"}},
		{"issued without times", certificatesv1.PodCertificateRequestStatus{}, certificatesv1.PodCertificateRequestStatus{Conditions: good.Conditions, CertificateChain: good.CertificateChain}, []string{"FieldValueRequired status.notBefore", "FieldValueRequired status.notAfter", "FieldValueRequired status.beginRefreshAt"}},
		{"denied", certificatesv1.PodCertificateRequestStatus{}, certificatesv1.PodCertificateRequestStatus{Conditions: condition(certificatesv1.PodCertificateRequestConditionTypeDenied)}, nil},
		{"denied with a chain", certificatesv1.PodCertificateRequestStatus{}, certificatesv1.PodCertificateRequestStatus{Conditions: condition(certificatesv1.PodCertificateRequestConditionTypeDenied), CertificateChain: good.CertificateChain}, []string{"FieldValueInvalid status"}},
		{"changed after issue", good, certificatesv1.PodCertificateRequestStatus{Conditions: condition(certificatesv1.PodCertificateRequestConditionTypeFailed)}, []string{"FieldValueInvalid status"}},
		{"unknown condition", certificatesv1.PodCertificateRequestStatus{}, certificatesv1.PodCertificateRequestStatus{Conditions: condition("Pending")}, []string{"FieldValueNotSupported status.conditions[0].type"}},
		{"chain without condition", certificatesv1.PodCertificateRequestStatus{}, certificatesv1.PodCertificateRequestStatus{CertificateChain: good.CertificateChain}, []string{"FieldValueInvalid status"}},
	}
	s := StatusStrategy{Strategy: NewStrategy(registrytest.NewScheme(t)), Now: func() time.Time { return now }}
	for _, tt := range tests {
		old, r := valid(t, key), valid(t, key)
		r.Spec = old.Spec
		old.Status, r.Status = tt.old, tt.new
		if diff := cmp.Diff(tt.want, describe(s.ValidateUpdate(context.Background(), r, old))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestSpecImmutable: the main resource only changes metadata.
func TestSpecImmutable(t *testing.T) {
	s := NewStrategy(registrytest.NewScheme(t))
	old := valid(t, newKey(t))
	r := old.DeepCopy()
	r.Spec.PodName = "web-1"
	if diff := cmp.Diff([]string{"FieldValueInvalid spec"}, describe(s.ValidateUpdate(context.Background(), r, old))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
