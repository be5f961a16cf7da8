package secret

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"math/big"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func newStrategy() Strategy { return NewStrategy(runtime.NewScheme()) }

func TestPrepareForCreate(t *testing.T) {
	s := &corev1.Secret{
		Data:       map[string][]byte{"a": []byte("old"), "b": []byte("kept")},
		StringData: map[string]string{"a": "new", "c": "added"},
	}
	newStrategy().PrepareForCreate(context.Background(), s)
	want := &corev1.Secret{
		Type: corev1.SecretTypeOpaque,
		Data: map[string][]byte{"a": []byte("new"), "b": []byte("kept"), "c": []byte("added")},
	}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestPrepareForUpdate(t *testing.T) {
	old := &corev1.Secret{Type: corev1.SecretTypeTLS}
	s := &corev1.Secret{StringData: map[string]string{"x": "y"}}
	newStrategy().PrepareForUpdate(context.Background(), s, old)
	want := &corev1.Secret{Type: corev1.SecretTypeTLS, Data: map[string][]byte{"x": []byte("y")}}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestTLSWarnings(t *testing.T) {
	cert, key := selfSigned(t)
	_, otherKey := selfSigned(t)
	tests := []struct {
		name   string
		secret *corev1.Secret
		want   []string
	}{
		{"matching", &corev1.Secret{Type: corev1.SecretTypeTLS, Data: map[string][]byte{"tls.crt": cert, "tls.key": key}}, nil},
		{"mismatched", &corev1.Secret{Type: corev1.SecretTypeTLS, Data: map[string][]byte{"tls.crt": cert, "tls.key": otherKey}},
			[]string{"tls: private key does not match public key"}},
		{"not tls", &corev1.Secret{Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"tls.crt": cert}}, nil},
	}
	for _, tt := range tests {
		got := newStrategy().WarningsOnCreate(context.Background(), tt.secret)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s create (-want +got):\n%s", tt.name, diff)
		}
		got = newStrategy().WarningsOnUpdate(context.Background(), tt.secret, tt.secret)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s update (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestGetAttrs(t *testing.T) {
	_, fs, err := GetAttrs(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns"}, Type: corev1.SecretTypeTLS})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"metadata.name": "s", "metadata.namespace": "ns", "type": "kubernetes.io/tls"}
	if diff := cmp.Diff(want, map[string]string(fs)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// selfSigned returns a PEM certificate and its PEM private key.
func selfSigned(t *testing.T) (cert, key []byte) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
}
