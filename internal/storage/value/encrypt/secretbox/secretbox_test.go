package secretbox

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/crypto/nacl/secretbox"

	"github.com/kapi-dev/kapi/internal/storage/value"
)

var (
	key   = [32]byte([]byte("0123456789abcdef0123456789abcdef"))
	other = [32]byte([]byte("fedcba9876543210fedcba9876543210"))
	etcd  = value.DefaultContext("/registry/secrets/ns/a")
)

func TestRoundTrip(t *testing.T) {
	tr := NewSecretboxTransformer(key)
	for _, p := range [][]byte{{}, []byte("a"), bytes.Repeat([]byte("z"), 5000)} {
		stored, err := tr.TransformToStorage(t.Context(), p, etcd)
		if err != nil {
			t.Fatal(err)
		}
		if len(stored) != NonceSize+secretbox.Overhead+len(p) {
			t.Errorf("stored length %d for %d bytes", len(stored), len(p))
		}
		got, stale, err := tr.TransformFromStorage(t.Context(), stored, etcd)
		if err != nil || stale || !bytes.Equal(got, p) {
			t.Errorf("round trip of %d bytes = (%q, %v, %v)", len(p), got, stale, err)
		}
	}
}

// TestLayout proves the stored layout is nonce | secretbox.Seal(value).
func TestLayout(t *testing.T) {
	tr := NewSecretboxTransformer(key)
	nonce := [NonceSize]byte([]byte("twenty-four byte nonce!!"))
	byHand := secretbox.Seal(nonce[:], []byte("plain"), &nonce, &key)
	got, _, err := tr.TransformFromStorage(t.Context(), byHand, etcd)
	if err != nil || string(got) != "plain" {
		t.Fatalf("reading a hand-sealed value = (%q, %v)", got, err)
	}
	stored, _ := tr.TransformToStorage(t.Context(), []byte("plain"), etcd)
	n := [NonceSize]byte(stored[:NonceSize])
	opened, ok := secretbox.Open(nil, stored[NonceSize:], &n, &key)
	if !ok || string(opened) != "plain" {
		t.Fatalf("opening by hand = (%q, %v)", opened, ok)
	}
}

func TestReadErrors(t *testing.T) {
	stored, _ := NewSecretboxTransformer(key).TransformToStorage(t.Context(), []byte("v"), etcd)
	tampered := bytes.Clone(stored)
	tampered[NonceSize] ^= 1
	tests := []struct {
		name string
		key  [32]byte
		in   []byte
		want string
	}{
		{"wrong key", other, stored, "unable to decrypt"},
		{"tampered", key, tampered, "unable to decrypt"},
		{"short", key, stored[:NonceSize+secretbox.Overhead-1], "shorter than the required size"},
		{"empty box", key, make([]byte, NonceSize+secretbox.Overhead), "unable to decrypt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := NewSecretboxTransformer(tt.key).TransformFromStorage(t.Context(), tt.in, etcd)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got (%q, %v), want an error containing %q", got, err, tt.want)
			}
		})
	}
}
