package aes

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/internal/storage/value"
)

var (
	key16 = []byte("0123456789abcdef")
	key32 = []byte("0123456789abcdef0123456789abcdef")
	other = []byte("fedcba9876543210")
	etcd  = value.DefaultContext("/registry/secrets/ns/a")
)

func block(t testing.TB, key []byte) cipher.Block {
	t.Helper()
	b, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func gcmFor(t testing.TB, key []byte) value.Transformer {
	t.Helper()
	tr, err := NewGCMTransformer(block(t, key))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// plaintexts cover empty input and the block-boundary lengths padding
// cares about.
var plaintexts = [][]byte{{}, []byte("a"), bytes.Repeat([]byte("b"), 15), bytes.Repeat([]byte("c"), 16),
	bytes.Repeat([]byte("d"), 17), bytes.Repeat([]byte("e"), 1000)}

func TestRoundTrip(t *testing.T) {
	for _, key := range [][]byte{key16, key32} {
		for name, tr := range map[string]value.Transformer{"gcm": gcmFor(t, key), "cbc": NewCBCTransformer(block(t, key))} {
			for _, p := range plaintexts {
				stored, err := tr.TransformToStorage(t.Context(), p, etcd)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if len(p) >= 16 && bytes.Contains(stored, p) {
					t.Errorf("%s: stored value contains the plaintext", name)
				}
				got, stale, err := tr.TransformFromStorage(t.Context(), stored, etcd)
				if err != nil || stale || !bytes.Equal(got, p) {
					t.Errorf("%s len %d: round trip = (%q, %v, %v)", name, len(p), got, stale, err)
				}
			}
		}
	}
}

// TestGCMLayout proves the stored layout is nonce | ciphertext | tag with
// the etcd key as additional data, by sealing and opening by hand.
func TestGCMLayout(t *testing.T) {
	tr := gcmFor(t, key16)
	ref, err := cipher.NewGCM(block(t, key16))
	if err != nil {
		t.Fatal(err)
	}
	plain := []byte("k8s\x00protobuf bytes")

	nonce := []byte("twelve bytes")
	byHand := ref.Seal(append([]byte(nil), nonce...), nonce, plain, etcd)
	got, _, err := tr.TransformFromStorage(t.Context(), byHand, etcd)
	if err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("reading a hand-sealed value = (%q, %v)", got, err)
	}

	stored, err := tr.TransformToStorage(t.Context(), plain, etcd)
	if err != nil {
		t.Fatal(err)
	}
	if want := GCMNonceSize + len(plain) + gcmTagSize; len(stored) != want {
		t.Fatalf("stored length %d, want %d", len(stored), want)
	}
	opened, err := ref.Open(nil, stored[:GCMNonceSize], stored[GCMNonceSize:], etcd)
	if err != nil || !bytes.Equal(opened, plain) {
		t.Fatalf("opening by hand = (%q, %v)", opened, err)
	}
	again, _ := tr.TransformToStorage(t.Context(), plain, etcd)
	if bytes.Equal(again[:GCMNonceSize], stored[:GCMNonceSize]) {
		t.Error("two writes used the same nonce")
	}
}

// TestCBCLayout proves the stored layout is IV | CBC(PKCS#7(value)).
func TestCBCLayout(t *testing.T) {
	b := block(t, key32)
	tr := NewCBCTransformer(b)
	plain := []byte("twenty-one bytes long")
	padded := append(append([]byte(nil), plain...), bytes.Repeat([]byte{11}, 11)...)

	iv := []byte("sixteen byte iv!")
	byHand := make([]byte, 16+len(padded))
	copy(byHand, iv)
	cipher.NewCBCEncrypter(b, iv).CryptBlocks(byHand[16:], padded)
	got, _, err := tr.TransformFromStorage(t.Context(), byHand, etcd)
	if err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("reading a hand-encrypted value = (%q, %v)", got, err)
	}

	stored, err := tr.TransformToStorage(t.Context(), plain, etcd)
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != 16+32 {
		t.Fatalf("stored length %d, want 48", len(stored))
	}
	dec := make([]byte, 32)
	cipher.NewCBCDecrypter(b, stored[:16]).CryptBlocks(dec, stored[16:])
	if !bytes.Equal(dec, padded) {
		t.Fatalf("decrypting by hand = %q, want %q", dec, padded)
	}
}

// TestAuthenticatedData: aesgcm binds a value to its key, aescbc does not.
func TestAuthenticatedData(t *testing.T) {
	moved := value.DefaultContext("/registry/secrets/ns/b")
	gcm := gcmFor(t, key16)
	stored, _ := gcm.TransformToStorage(t.Context(), []byte("v"), etcd)
	if _, _, err := gcm.TransformFromStorage(t.Context(), stored, moved); err == nil {
		t.Error("aesgcm read a value under another key")
	}
	cbc := NewCBCTransformer(block(t, key16))
	stored, _ = cbc.TransformToStorage(t.Context(), []byte("v"), etcd)
	if got, _, err := cbc.TransformFromStorage(t.Context(), stored, moved); err != nil || string(got) != "v" {
		t.Errorf("aescbc under another key = (%q, %v), want it readable", got, err)
	}
}

func TestReadErrors(t *testing.T) {
	gcm, gcmOther := gcmFor(t, key16), gcmFor(t, other)
	cbc, cbcOther := NewCBCTransformer(block(t, key16)), NewCBCTransformer(block(t, other))
	gcmStored, _ := gcm.TransformToStorage(t.Context(), []byte("secret value"), etcd)
	tampered := bytes.Clone(gcmStored)
	tampered[len(tampered)-1] ^= 1

	// badPad encrypts a last block with the padding a test wants.
	b := block(t, key16)
	badPad := func(last []byte) []byte {
		out := make([]byte, 32)
		copy(out, "sixteen byte iv!")
		cipher.NewCBCEncrypter(b, out[:16]).CryptBlocks(out[16:], last)
		return out
	}
	// A fixed IV makes the wrong-key result deterministic; a random one
	// would yield valid padding about once in 256 runs.
	cbcStored := make([]byte, 32)
	copy(cbcStored, "sixteen byte iv!")
	cipher.NewCBCEncrypter(b, cbcStored[:16]).CryptBlocks(cbcStored[16:], []byte("secret value\x04\x04\x04\x04"))
	if got, _, err := cbc.TransformFromStorage(t.Context(), cbcStored, etcd); err != nil || string(got) != "secret value" {
		t.Fatalf("right key = (%q, %v)", got, err)
	}
	tests := []struct {
		name string
		tr   value.Transformer
		in   []byte
		want string
	}{
		{"gcm wrong key", gcmOther, gcmStored, "authentication failed"},
		{"gcm tampered", gcm, tampered, "authentication failed"},
		{"gcm short", gcm, []byte("short"), "shorter than the required size"},
		{"gcm nonce only", gcm, make([]byte, GCMNonceSize), "authentication failed"},
		{"cbc wrong key", cbcOther, cbcStored, ""},
		{"cbc short", cbc, []byte("short"), "shorter than the required size"},
		{"cbc iv only", cbc, make([]byte, 16), "invalid PKCS7 data"},
		{"cbc partial block", cbc, make([]byte, 20), "not a multiple of the block size"},
		{"cbc zero pad", cbc, badPad(make([]byte, 16)), "invalid PKCS7 data"},
		{"cbc pad too long", cbc, badPad(bytes.Repeat([]byte{17}, 16)), "invalid PKCS7 data"},
		{"cbc inconsistent pad", cbc, badPad(append(bytes.Repeat([]byte{'x'}, 13), 1, 2, 3)), "invalid padding"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := tt.tr.TransformFromStorage(t.Context(), tt.in, etcd)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got (%q, %v), want an error containing %q", got, err, tt.want)
			}
		})
	}
}

func TestNewGCMTransformerNeedsAES(t *testing.T) {
	if _, err := NewGCMTransformer(fakeBlock{}); err == nil {
		t.Error("a non-AES block was accepted")
	}
}

type fakeBlock struct{}

func (fakeBlock) BlockSize() int          { return 16 }
func (fakeBlock) Encrypt(dst, src []byte) { copy(dst, src) }
func (fakeBlock) Decrypt(dst, src []byte) { copy(dst, src) }

func BenchmarkGCMWrite(b *testing.B) {
	tr := gcmFor(b, key32)
	data := bytes.Repeat([]byte("x"), 1024)
	for b.Loop() {
		if _, err := tr.TransformToStorage(b.Context(), data, etcd); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCBCRead(b *testing.B) {
	tr := NewCBCTransformer(block(b, key32))
	stored, _ := tr.TransformToStorage(b.Context(), bytes.Repeat([]byte("x"), 1024), etcd)
	for b.Loop() {
		if _, _, err := tr.TransformFromStorage(b.Context(), stored, etcd); err != nil {
			b.Fatal(err)
		}
	}
}
