package bootstrapsigner

import (
	"context"
	"encoding/base64"
	"log/slog"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	testingclock "k8s.io/utils/clock/testing"
)

var now = time.Date(2027, 1, 2, 3, 4, 5, 0, time.UTC)

const kubeconfig = "apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    server: https://10.0.0.1:6443\n  name: \"\"\n"

// verify checks sig as kubeadm's discovery does: the detached payload put
// back, HS256 with the zero-padded token secret, kid the token id.
func verify(t *testing.T, sig, content, id, secret string) {
	t.Helper()
	header, signature, ok := strings.Cut(sig, "..")
	if !ok {
		t.Fatalf("signature %q is not detached", sig)
	}
	full := header + "." + base64.RawURLEncoding.EncodeToString([]byte(content)) + "." + signature
	parsed, err := jose.ParseSigned(full, []jose.SignatureAlgorithm{jose.HS256})
	if err != nil {
		t.Fatal(err)
	}
	if kid := parsed.Signatures[0].Header.KeyID; kid != id {
		t.Errorf("kid = %q, want %q", kid, id)
	}
	key := make([]byte, 32)
	copy(key, secret)
	payload, err := parsed.Verify(key)
	if err != nil {
		t.Fatalf("signature does not verify: %v", err)
	}
	if string(payload) != content {
		t.Errorf("payload = %q", payload)
	}
}

func TestDetachedSignatureVerifies(t *testing.T) {
	sig, err := DetachedSignature(kubeconfig, "abcdef", "0123456789abcdef")
	if err != nil {
		t.Fatal(err)
	}
	verify(t, sig, kubeconfig, "abcdef", "0123456789abcdef")
	again, _ := DetachedSignature(kubeconfig, "abcdef", "0123456789abcdef")
	if again != sig {
		t.Error("the signature is not deterministic: every pass would rewrite the ConfigMap")
	}
}

func token(name, id, secret string, data map[string]string) *corev1.Secret {
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-system"},
		Type:       corev1.SecretTypeBootstrapToken,
		Data:       map[string][]byte{"token-id": []byte(id), "token-secret": []byte(secret), "usage-bootstrap-signing": []byte("true")},
	}
	for k, v := range data {
		s.Data[k] = []byte(v)
	}
	return s
}

func newSigner(t *testing.T, objs ...runtime.Object) (*Controller, *fake.Clientset) {
	t.Helper()
	client := fake.NewClientset(objs...)
	f := informers.NewSharedInformerFactory(client, 0)
	c, err := New(client, f.Core().V1().ConfigMaps(), f.Core().V1().Secrets(), testingclock.NewFakePassiveClock(now), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		switch o := o.(type) {
		case *corev1.ConfigMap:
			_ = f.Core().V1().ConfigMaps().Informer().GetIndexer().Add(o)
		case *corev1.Secret:
			_ = f.Core().V1().Secrets().Informer().GetIndexer().Add(o)
		}
	}
	return c, client
}

func updates(client *fake.Clientset) []*corev1.ConfigMap {
	var out []*corev1.ConfigMap
	for _, a := range client.Actions() {
		if u, ok := a.(k8stesting.UpdateAction); ok {
			out = append(out, u.GetObject().(*corev1.ConfigMap))
		}
	}
	return out
}

// TestSyncSigns pins upstream's signer: only valid signing tokens sign
// (not expired, usage-bootstrap-signing "true", id matching the name);
// stale signatures go; other keys stay.
func TestSyncSigns(t *testing.T) {
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "cluster-info", Namespace: "kube-public"},
		Data:       map[string]string{"kubeconfig": kubeconfig, "jws-kubeconfig-zzzzzz": "stale", "other": "kept"},
	}
	c, client := newSigner(t, cm,
		token("bootstrap-token-abcdef", "abcdef", "0123456789abcdef", nil),
		token("bootstrap-token-expire", "expire", "0123456789abcdef", map[string]string{"expiration": now.Add(-time.Minute).Format(time.RFC3339)}),
		token("bootstrap-token-later1", "later1", "fedcba9876543210", map[string]string{"expiration": now.Add(time.Hour).Format(time.RFC3339)}),
		token("bootstrap-token-nosign", "nosign", "0123456789abcdef", map[string]string{"usage-bootstrap-signing": "false"}),
		token("bootstrap-token-wrong1", "wrong2", "0123456789abcdef", nil),
		token("not-a-token-name", "abc123", "0123456789abcdef", nil),
	)
	if err := c.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := updates(client)
	if len(got) != 1 {
		t.Fatalf("%d updates, want 1", len(got))
	}
	data := got[0].Data
	var keys []string
	for k := range data {
		keys = append(keys, k)
	}
	want := map[string]bool{"kubeconfig": true, "other": true, "jws-kubeconfig-abcdef": true, "jws-kubeconfig-later1": true}
	if len(data) != len(want) {
		t.Fatalf("keys %v, want %v", keys, want)
	}
	for k := range want {
		if _, ok := data[k]; !ok {
			t.Fatalf("keys %v, want %v", keys, want)
		}
	}
	verify(t, data["jws-kubeconfig-abcdef"], kubeconfig, "abcdef", "0123456789abcdef")
	verify(t, data["jws-kubeconfig-later1"], kubeconfig, "later1", "fedcba9876543210")
}

// TestSyncUnchanged: current signatures mean no write; no kubeconfig or
// no ConfigMap means nothing to do.
func TestSyncUnchanged(t *testing.T) {
	sig, err := DetachedSignature(kubeconfig, "abcdef", "0123456789abcdef")
	if err != nil {
		t.Fatal(err)
	}
	tok := token("bootstrap-token-abcdef", "abcdef", "0123456789abcdef", nil)
	tests := []struct {
		name string
		objs []runtime.Object
	}{
		{"signed", []runtime.Object{tok, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "cluster-info", Namespace: "kube-public"},
			Data:       map[string]string{"kubeconfig": kubeconfig, "jws-kubeconfig-abcdef": sig}}}},
		{"no kubeconfig", []runtime.Object{tok, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "cluster-info", Namespace: "kube-public"},
			Data:       map[string]string{"jws-kubeconfig-zzzzzz": "stale"}}}},
		{"no configmap", []runtime.Object{tok}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, client := newSigner(t, tt.objs...)
			if err := c.Sync(context.Background()); err != nil {
				t.Fatal(err)
			}
			if n := len(updates(client)); n != 0 {
				t.Errorf("%d updates, want none", n)
			}
		})
	}
}
