package clustertrustbundle

import (
	"context"
	"crypto/ed25519"
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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func TestGolden(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	m, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	registrytest.Golden(t, scheme, m["clustertrustbundles"].(rest.Creater), "testdata", "minimal")
}

// certPEM returns a self-signed certificate, a CA or not.
func certPEM(t *testing.T, ca bool) string {
	t.Helper()
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "test"},
		NotBefore:             time.Now(),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  ca,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

func describe(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, string(e.Type)+" "+e.Field+": "+e.Detail)
	}
	return out
}

func TestValidate(t *testing.T) {
	ca, leaf := certPEM(t, true), certPEM(t, false)
	tests := []struct {
		name   string
		bundle string
		signer string
		want   []string
	}{
		{"signer bundle", "example.com:signer:a", "example.com/signer", nil},
		{"no signer", "plain", "", nil},
		{"colon without signer", "a:b", "", []string{`FieldValueInvalid metadata.name: ClusterTrustBundle without signer name must not have ":" in its name`}},
		{"wrong prefix", "other", "example.com/signer", []string{"FieldValueInvalid metadata.name: ClusterTrustBundle for signerName example.com/signer must be named with prefix example.com:signer:"}},
		{"bad signer", "x:a", "x", []string{"FieldValueInvalid spec.signerName: must be a fully qualified domain and path of the form 'example.com/signer-name'"}},
	}
	s := NewStrategy(registrytest.NewScheme(t))
	for _, tt := range tests {
		b := &certificatesv1.ClusterTrustBundle{ObjectMeta: metav1.ObjectMeta{Name: tt.bundle}, Spec: certificatesv1.ClusterTrustBundleSpec{SignerName: tt.signer, TrustBundle: ca}}
		if diff := cmp.Diff(tt.want, describe(s.Validate(context.Background(), b))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}

	bundles := []struct {
		name   string
		bundle string
		want   []string
	}{
		{"two anchors", ca + certPEM(t, true), nil},
		{"empty", "", []string{"FieldValueInvalid spec.trustBundle: at least one trust anchor must be provided"}},
		{"not a CA", leaf, []string{"FieldValueInvalid spec.trustBundle: entry 0 does not have the CA bit set"}},
		{"duplicate", ca + ca, []string{"FieldValueInvalid spec.trustBundle: duplicate trust anchor (indices [0 1])"}},
		{"wrong block", strings.ReplaceAll(ca, "CERTIFICATE", "PUBLIC KEY"), []string{"FieldValueInvalid spec.trustBundle: entry 0 has bad block type: PUBLIC KEY"}},
		{"headers", strings.Replace(ca, "-----\n", "-----\nProc-Type: 4,ENCRYPTED\n\n", 1), []string{"FieldValueInvalid spec.trustBundle: entry 0 has PEM block headers"}},
	}
	for _, tt := range bundles {
		b := &certificatesv1.ClusterTrustBundle{ObjectMeta: metav1.ObjectMeta{Name: "b"}, Spec: certificatesv1.ClusterTrustBundleSpec{TrustBundle: tt.bundle}}
		if diff := cmp.Diff(tt.want, describe(s.Validate(context.Background(), b))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestValidateUpdate(t *testing.T) {
	s := NewStrategy(registrytest.NewScheme(t))
	old := &certificatesv1.ClusterTrustBundle{ObjectMeta: metav1.ObjectMeta{Name: "example.com:a:b", ResourceVersion: "1"}, Spec: certificatesv1.ClusterTrustBundleSpec{SignerName: "example.com/a", TrustBundle: certPEM(t, true)}}
	b := old.DeepCopy()
	b.Spec.SignerName = "example.com/b"
	got := describe(s.ValidateUpdate(context.Background(), b, old))
	want := []string{"FieldValueInvalid metadata.name: ClusterTrustBundle for signerName example.com/b must be named with prefix example.com:b:", "FieldValueInvalid spec.signerName: field is immutable"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("signer change (-want +got):\n%s", diff)
	}
}

func TestTable(t *testing.T) {
	table, err := Table().ConvertToTable(context.Background(), &certificatesv1.ClusterTrustBundle{ObjectMeta: metav1.ObjectMeta{Name: "plain"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range table.ColumnDefinitions {
		names = append(names, c.Name)
	}
	if diff := cmp.Diff([]string{"Name", "SignerName"}, names); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{"plain", "<none>"}, table.Rows[0].Cells); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
}
