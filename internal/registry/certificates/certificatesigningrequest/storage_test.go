package certificatesigningrequest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func newStorage(t *testing.T) map[string]rest.Storage {
	t.Helper()
	scheme := registrytest.NewScheme(t)
	m, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestGolden(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	m, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	csr := registrytest.Golden(t, scheme, m["certificatesigningrequests"].(rest.Creater), "testdata", "minimal").(*certificatesv1.CertificateSigningRequest)
	if csr.Spec.Username != "" {
		t.Errorf("username %q kept from the client", csr.Spec.Username)
	}
}

// newCSR returns a PEM certificate request for CN=name and its key.
func newCSR(t *testing.T, name string) ([]byte, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: name}}, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}), key
}

// newCert returns a PEM self-signed certificate.
func newCert(t *testing.T, key *ecdsa.PrivateKey) []byte {
	t.Helper()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func valid(t *testing.T) *certificatesv1.CertificateSigningRequest {
	req, _ := newCSR(t, "alice")
	return &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{Name: "alice"},
		Spec: certificatesv1.CertificateSigningRequestSpec{
			Request:    req,
			SignerName: "kubernetes.io/kube-apiserver-client",
			Usages:     []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth},
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
	tests := []struct {
		name   string
		mutate func(*certificatesv1.CertificateSigningRequest)
		want   []string
	}{
		{"valid", func(*certificatesv1.CertificateSigningRequest) {}, nil},
		{"not a CSR", func(c *certificatesv1.CertificateSigningRequest) {
			c.Spec.Request = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte("x")})
		}, []string{"FieldValueInvalid spec.request"}},
		{"no signer", func(c *certificatesv1.CertificateSigningRequest) { c.Spec.SignerName = "" }, []string{"FieldValueRequired spec.signerName"}},
		{"unqualified signer", func(c *certificatesv1.CertificateSigningRequest) { c.Spec.SignerName = "signer" }, []string{"FieldValueInvalid spec.signerName"}},
		{"legacy signer", func(c *certificatesv1.CertificateSigningRequest) { c.Spec.SignerName = "kubernetes.io/legacy-unknown" }, []string{"FieldValueInvalid spec.signerName"}},
		{"no usages", func(c *certificatesv1.CertificateSigningRequest) { c.Spec.Usages = nil }, []string{"FieldValueRequired spec.usages"}},
		{"unknown usage", func(c *certificatesv1.CertificateSigningRequest) { c.Spec.Usages = []certificatesv1.KeyUsage{"fly"} }, []string{"FieldValueNotSupported spec.usages[0]"}},
		{"short expiration", func(c *certificatesv1.CertificateSigningRequest) { c.Spec.ExpirationSeconds = ptr.To[int32](599) }, []string{"FieldValueInvalid spec.expirationSeconds"}},
	}
	s := NewStrategy(registrytest.NewScheme(t))
	for _, tt := range tests {
		c := valid(t)
		tt.mutate(c)
		if diff := cmp.Diff(tt.want, describe(s.Validate(context.Background(), c))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	c := valid(t)
	c.Spec.Request = []byte("junk")
	errs := s.Validate(context.Background(), c)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "PEM block type must be CERTIFICATE REQUEST") {
		t.Errorf("junk request: %v", errs)
	}
}

func TestCreateRecordsRequester(t *testing.T) {
	r := newStorage(t)["certificatesigningrequests"].(rest.StandardStorage)
	ctx := request.WithUser(registrytest.NamespaceContext(""), &user.DefaultInfo{
		Name: "alice", UID: "u1", Groups: []string{"dev"}, Extra: map[string][]string{"scope": {"x"}},
	})
	c := valid(t)
	c.Spec.Username = "mallory"
	c.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{{Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue}}
	obj, err := r.Create(ctx, c, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := obj.(*certificatesv1.CertificateSigningRequest)
	want := certificatesv1.CertificateSigningRequestSpec{
		Request: c.Spec.Request, SignerName: c.Spec.SignerName, Usages: c.Spec.Usages,
		Username: "alice", UID: "u1", Groups: []string{"dev"}, Extra: map[string]certificatesv1.ExtraValue{"scope": {"x"}},
	}
	if diff := cmp.Diff(want, got.Spec); diff != "" {
		t.Errorf("spec (-want +got):\n%s", diff)
	}
	if len(got.Status.Conditions) != 0 {
		t.Errorf("created pre-approved: %v", got.Status.Conditions)
	}
}

func TestSubresources(t *testing.T) {
	m := newStorage(t)
	r := m["certificatesigningrequests"].(rest.StandardStorage)
	approval := m["certificatesigningrequests/approval"].(rest.Updater)
	status := m["certificatesigningrequests/status"].(rest.Updater)
	ctx := registrytest.NamespaceContext("")
	c := valid(t)
	obj, err := r.Create(ctx, c, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created := obj.(*certificatesv1.CertificateSigningRequest)
	update := func(u rest.Updater, csr *certificatesv1.CertificateSigningRequest) (*certificatesv1.CertificateSigningRequest, error) {
		obj, _, err := u.Update(ctx, csr.Name, rest.DefaultUpdatedObjectInfo(csr), nil, nil, false, &metav1.UpdateOptions{})
		if err != nil {
			return nil, err
		}
		return obj.(*certificatesv1.CertificateSigningRequest), nil
	}
	approved := certificatesv1.CertificateSigningRequestCondition{Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue, Reason: "OK"}
	denied := certificatesv1.CertificateSigningRequestCondition{Type: certificatesv1.CertificateDenied, Status: corev1.ConditionTrue}

	// Approval cannot go through the main resource or status.
	for name, u := range map[string]rest.Updater{"main": r, "status": status} {
		csr := created.DeepCopy()
		csr.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{approved}
		got, err := update(u, csr)
		if name == "main" {
			if err != nil || len(got.Status.Conditions) != 0 {
				t.Errorf("main update: err=%v conditions=%v, want conditions dropped", err, got)
			}
			continue
		}
		if !apierrors.IsInvalid(err) {
			t.Errorf("approval through %s: %v, want Invalid", name, err)
		}
	}
	// Approved and Denied together are refused.
	csr := created.DeepCopy()
	csr.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{approved, denied}
	if _, err := update(approval, csr); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "Approved and Denied conditions are mutually exclusive") {
		t.Errorf("approved and denied: %v", err)
	}
	// Approval through /approval; spec changes are ignored.
	csr = created.DeepCopy()
	csr.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{approved}
	csr.Spec.SignerName = "example.com/other"
	got, err := update(approval, csr)
	if err != nil {
		t.Fatalf("approve: %v", err)
	}
	if got.Spec.SignerName != c.Spec.SignerName || got.Status.Conditions[0].LastUpdateTime.IsZero() {
		t.Errorf("approve stored %+v", got)
	}
	// The signer issues the certificate through /status; it must be PEM.
	_, key := newCSR(t, "x")
	csr = got.DeepCopy()
	csr.Status.Certificate = []byte("not pem")
	if _, err := update(status, csr); !apierrors.IsInvalid(err) {
		t.Errorf("non-PEM certificate: %v, want Invalid", err)
	}
	csr.Status.Certificate = newCert(t, key)
	got, err = update(status, csr)
	if err != nil {
		t.Fatalf("issue: %v", err)
	}
	if cell := condition(got); cell != "Approved,Issued" {
		t.Errorf("condition = %q, want Approved,Issued", cell)
	}
	// The approval subresource cannot change the certificate.
	csr = got.DeepCopy()
	csr.Status.Certificate = nil
	got, err = update(approval, csr)
	if err != nil || len(got.Status.Certificate) == 0 {
		t.Errorf("approval write dropped the certificate: err=%v", err)
	}
}

func TestTable(t *testing.T) {
	created := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c := &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{Name: "csr", CreationTimestamp: created},
		Spec:       certificatesv1.CertificateSigningRequestSpec{SignerName: "example.com/s", Username: "alice", ExpirationSeconds: ptr.To[int32](3600)},
	}
	table, err := Table().WithClock(func() time.Time { return created.Add(2 * time.Minute) }).ConvertToTable(context.Background(), c, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []any{"csr", "2m", "example.com/s", "alice", "60m", "Pending"}
	if diff := cmp.Diff(want, table.Rows[0].Cells); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
}

func TestGetAttrs(t *testing.T) {
	_, fs, err := GetAttrs(&certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Spec: certificatesv1.CertificateSigningRequestSpec{SignerName: "a.b/c"}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"metadata.name": "c", "spec.signerName": "a.b/c"}, map[string]string(fs)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestSelectableFieldsAreAccepted(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	_, fs, err := GetAttrs(&certificatesv1.CertificateSigningRequest{})
	if err != nil {
		t.Fatal(err)
	}
	gvk := certificatesv1.SchemeGroupVersion.WithKind("CertificateSigningRequest")
	for label := range fs {
		if _, _, err := scheme.ConvertFieldLabel(gvk, label, "x"); err != nil {
			t.Errorf("%s offered but rejected: %v", label, err)
		}
	}
	if _, _, err := scheme.ConvertFieldLabel(gvk, "spec.username", "x"); err == nil {
		t.Error("spec.username accepted")
	}
}
