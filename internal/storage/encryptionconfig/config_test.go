package encryptionconfig

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/nacl/secretbox"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/storage/value"
)

// Keys used across the tests, base64 encoded as the file holds them.
var (
	key16a = b64("aaaaaaaaaaaaaaaa")
	key16b = b64("bbbbbbbbbbbbbbbb")
	key32a = b64("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
	key32b = b64("bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb")
)

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

const header = "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n"

// load writes content to a file and loads it.
func load(t testing.TB, content string) (*Config, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "encryption.yaml")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return Load(path)
}

func mustLoad(t *testing.T, content string) *Config {
	t.Helper()
	c, err := load(t, content)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return c
}

// etcdKey is the authenticated data the storage layer passes.
var etcdKey = value.DefaultContext("/registry/secrets/ns/a")

func write(t *testing.T, tr value.Transformer, plain string) []byte {
	t.Helper()
	out, err := tr.TransformToStorage(t.Context(), []byte(plain), etcdKey)
	if err != nil {
		t.Fatalf("TransformToStorage: %v", err)
	}
	return out
}

func read(t *testing.T, tr value.Transformer, stored []byte) (string, bool) {
	t.Helper()
	out, stale, err := tr.TransformFromStorage(t.Context(), stored, etcdKey)
	if err != nil {
		t.Fatalf("TransformFromStorage: %v", err)
	}
	return string(out), stale
}

func TestProvidersRoundTrip(t *testing.T) {
	tests := []struct {
		provider, prefix string
	}{
		{"aescbc:\n      keys: [{name: k1, secret: " + key32a + "}]", "k8s:enc:aescbc:v1:k1:"},
		{"aescbc:\n      keys: [{name: k1, secret: " + key16a + "}]", "k8s:enc:aescbc:v1:k1:"},
		{"aesgcm:\n      keys: [{name: gk, secret: " + key16a + "}]", "k8s:enc:aesgcm:v1:gk:"},
		{"secretbox:\n      keys: [{name: sb, secret: " + key32a + "}]", "k8s:enc:secretbox:v1:sb:"},
		{"identity: {}", ""},
	}
	for _, tt := range tests {
		t.Run(tt.prefix, func(t *testing.T) {
			c := mustLoad(t, header+"resources:\n- resources: [secrets]\n  providers:\n  - "+tt.provider+"\n")
			tr := c.TransformerFor(schema.GroupResource{Resource: "secrets"})
			stored := write(t, tr, "k8s\x00plain")
			if !bytes.HasPrefix(stored, []byte(tt.prefix)) {
				t.Fatalf("stored %q, want prefix %q", stored, tt.prefix)
			}
			if tt.prefix != "" && bytes.Contains(stored, []byte("plain")) {
				t.Error("stored value holds the plaintext")
			}
			if got, stale := read(t, tr, stored); got != "k8s\x00plain" || stale {
				t.Errorf("read back (%q, stale=%v)", got, stale)
			}
		})
	}
}

// TestKnownAnswer builds stored values by hand, as kube-apiserver lays them
// out, and reads them through a loaded configuration.
func TestKnownAnswer(t *testing.T) {
	c := mustLoad(t, header+`resources:
- resources: [secrets]
  providers:
  - aesgcm: {keys: [{name: g, secret: `+key16a+`}]}
  - aescbc: {keys: [{name: c, secret: `+key32a+`}]}
  - secretbox: {keys: [{name: s, secret: `+key32b+`}]}
`)
	tr := c.TransformerFor(schema.GroupResource{Resource: "secrets"})
	plain := []byte("k8s\x00\n\x0c\n\x02v1\x12\x06Secret")

	block16, _ := aes.NewCipher([]byte("aaaaaaaaaaaaaaaa"))
	gcm, _ := cipher.NewGCM(block16)
	nonce := []byte("nonce-twelve")
	gcmValue := append([]byte("k8s:enc:aesgcm:v1:g:"), gcm.Seal(append([]byte(nil), nonce...), nonce, plain, etcdKey)...)

	block32, _ := aes.NewCipher([]byte("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"))
	pad := 16 - len(plain)%16
	padded := append(bytes.Clone(plain), bytes.Repeat([]byte{byte(pad)}, pad)...)
	iv := []byte("an-iv-of-sixteen")
	body := make([]byte, len(padded))
	cipher.NewCBCEncrypter(block32, iv).CryptBlocks(body, padded)
	cbcValue := append(append([]byte("k8s:enc:aescbc:v1:c:"), iv...), body...)

	sbKey := [32]byte([]byte("bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"))
	sbNonce := [24]byte([]byte("a-twenty-four-byte-nonce"))
	sbValue := append([]byte("k8s:enc:secretbox:v1:s:"), secretbox.Seal(sbNonce[:], plain, &sbNonce, &sbKey)...)

	for name, tt := range map[string]struct {
		stored    []byte
		wantStale bool
	}{
		"aesgcm":    {gcmValue, false},
		"aescbc":    {cbcValue, true},
		"secretbox": {sbValue, true},
	} {
		got, stale := read(t, tr, tt.stored)
		if got != string(plain) || stale != tt.wantStale {
			t.Errorf("%s: read (%q, stale=%v), want (%q, stale=%v)", name, got, stale, plain, tt.wantStale)
		}
	}

	// The aesgcm value is bound to its etcd key.
	if _, _, err := tr.TransformFromStorage(t.Context(), gcmValue, value.DefaultContext("/registry/secrets/ns/b")); err == nil {
		t.Error("aesgcm value read under another etcd key")
	}
}

func TestKeyRotation(t *testing.T) {
	secrets := schema.GroupResource{Resource: "secrets"}
	old := mustLoad(t, header+"resources:\n- resources: [secrets]\n  providers:\n  - aescbc: {keys: [{name: k1, secret: "+key32a+"}]}\n")
	rotated := mustLoad(t, header+"resources:\n- resources: [secrets]\n  providers:\n  - aescbc: {keys: [{name: k2, secret: "+key32b+"}, {name: k1, secret: "+key32a+"}]}\n")
	dropped := mustLoad(t, header+"resources:\n- resources: [secrets]\n  providers:\n  - aescbc: {keys: [{name: k2, secret: "+key32b+"}]}\n")

	oldValue := write(t, old.TransformerFor(secrets), "v")
	if got, stale := read(t, rotated.TransformerFor(secrets), oldValue); got != "v" || !stale {
		t.Errorf("old key after rotation: (%q, stale=%v), want (\"v\", stale)", got, stale)
	}
	newValue := write(t, rotated.TransformerFor(secrets), "v")
	if !bytes.HasPrefix(newValue, []byte("k8s:enc:aescbc:v1:k2:")) {
		t.Errorf("write after rotation = %q, want the k2 prefix", newValue)
	}
	if got, stale := read(t, rotated.TransformerFor(secrets), newValue); got != "v" || stale {
		t.Errorf("new key: (%q, stale=%v)", got, stale)
	}
	_, _, err := dropped.TransformerFor(secrets).TransformFromStorage(t.Context(), oldValue, etcdKey)
	if err == nil || !strings.Contains(err.Error(), "no matching key was found for the provided AES transformer") {
		t.Errorf("reading a dropped key: %v", err)
	}
}

// TestProviderOrder covers turning encryption on and off: the first
// provider writes, the others read, and unprefixed data is only readable
// with identity in the list.
func TestProviderOrder(t *testing.T) {
	secrets := schema.GroupResource{Resource: "secrets"}
	encFirst := mustLoad(t, header+"resources:\n- resources: [secrets]\n  providers:\n  - secretbox: {keys: [{name: s, secret: "+key32a+"}]}\n  - identity: {}\n").TransformerFor(secrets)
	idFirst := mustLoad(t, header+"resources:\n- resources: [secrets]\n  providers:\n  - identity: {}\n  - secretbox: {keys: [{name: s, secret: "+key32a+"}]}\n").TransformerFor(secrets)
	encOnly := mustLoad(t, header+"resources:\n- resources: [secrets]\n  providers:\n  - secretbox: {keys: [{name: s, secret: "+key32a+"}]}\n").TransformerFor(secrets)

	plain := []byte("k8s\x00plain")
	if got, stale := read(t, encFirst, plain); got != string(plain) || !stale {
		t.Errorf("plain data with identity second: (%q, stale=%v), want stale", got, stale)
	}
	encrypted := write(t, encFirst, "v")
	if got, stale := read(t, idFirst, encrypted); got != "v" || !stale {
		t.Errorf("encrypted data with identity first: (%q, stale=%v), want stale", got, stale)
	}
	if got := write(t, idFirst, "v"); string(got) != "v" {
		t.Errorf("identity first writes %q, want plain", got)
	}
	if got, stale := read(t, idFirst, plain); got != string(plain) || stale {
		t.Errorf("plain data with identity first: (%q, stale=%v)", got, stale)
	}
	_, _, err := encOnly.TransformFromStorage(t.Context(), plain, etcdKey)
	if err == nil || !strings.Contains(err.Error(), "no matching prefix found") {
		t.Errorf("plain data without identity: err = %v", err)
	}
	// Wrong key: the same provider, another secret.
	other := mustLoad(t, header+"resources:\n- resources: [secrets]\n  providers:\n  - secretbox: {keys: [{name: s, secret: "+key32b+"}]}\n").TransformerFor(secrets)
	if _, _, err := other.TransformFromStorage(t.Context(), encrypted, etcdKey); err == nil {
		t.Error("read with the wrong key succeeded")
	}
}

func TestTransformerForWildcards(t *testing.T) {
	c := mustLoad(t, header+`resources:
- resources: [events]
  providers: [{identity: {}}]
- resources: [secrets, configmaps, pandas.awesome.bears.example]
  providers: [{aescbc: {keys: [{name: k1, secret: `+key32a+`}]}}]
- resources: ['*.apps']
  providers: [{aescbc: {keys: [{name: k2, secret: `+key32a+`}]}}]
- resources: ['*.']
  providers: [{aesgcm: {keys: [{name: k3, secret: `+key16a+`}]}}]
- resources: ['*.*']
  providers: [{secretbox: {keys: [{name: k4, secret: `+key32a+`}]}}]
`)
	tests := []struct {
		gr     schema.GroupResource
		prefix string
	}{
		{schema.GroupResource{Resource: "secrets"}, "k8s:enc:aescbc:v1:k1:"},
		{schema.GroupResource{Resource: "configmaps"}, "k8s:enc:aescbc:v1:k1:"},
		{schema.GroupResource{Group: "awesome.bears.example", Resource: "pandas"}, "k8s:enc:aescbc:v1:k1:"},
		{schema.GroupResource{Group: "apps", Resource: "deployments"}, "k8s:enc:aescbc:v1:k2:"},
		{schema.GroupResource{Resource: "pods"}, "k8s:enc:aesgcm:v1:k3:"},
		{schema.GroupResource{Group: "batch", Resource: "jobs"}, "k8s:enc:secretbox:v1:k4:"},
		{schema.GroupResource{Resource: "events"}, "plain"},
	}
	for _, tt := range tests {
		tr := c.TransformerFor(tt.gr)
		if tr == nil {
			t.Errorf("%s: no transformer", tt.gr)
			continue
		}
		if got := write(t, tr, "plain"); !bytes.HasPrefix(got, []byte(tt.prefix)) {
			t.Errorf("%s writes %q, want prefix %q", tt.gr, got, tt.prefix)
		}
	}

	narrow := mustLoad(t, header+"resources:\n- resources: [secrets]\n  providers: [{identity: {}}]\n")
	if tr := narrow.TransformerFor(schema.GroupResource{Resource: "configmaps"}); tr != nil {
		t.Errorf("uncovered resource got %T, want nil", tr)
	}
	var none *Config
	if tr := none.TransformerFor(schema.GroupResource{Resource: "secrets"}); tr != nil {
		t.Errorf("nil config gave %T", tr)
	}
}

func TestJSONConfig(t *testing.T) {
	c := mustLoad(t, `{"kind":"EncryptionConfiguration","apiVersion":"apiserver.config.k8s.io/v1",
"resources":[{"resources":["secrets"],"providers":[{"aesgcm":{"keys":[{"name":"k","secret":"`+key32a+`"}]}}]}]}`)
	got := write(t, c.TransformerFor(schema.GroupResource{Resource: "secrets"}), "x")
	if !bytes.HasPrefix(got, []byte("k8s:enc:aesgcm:v1:k:")) {
		t.Errorf("wrote %q", got)
	}
}
