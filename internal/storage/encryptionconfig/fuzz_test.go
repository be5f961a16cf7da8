package encryptionconfig

import (
	"bytes"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/storage/value"
)

// fuzzConfig gives every provider, alone and together, so arbitrary stored
// bytes reach each transformer's read path with and without its prefix.
var fuzzConfig = header + `resources:
- resources: [a]
  providers: [{aescbc: {keys: [{name: k1, secret: ` + key16a + `}, {name: k2, secret: ` + key32a + `}]}}]
- resources: [b]
  providers: [{aesgcm: {keys: [{name: k1, secret: ` + key16a + `}]}}]
- resources: [c]
  providers: [{secretbox: {keys: [{name: k1, secret: ` + key32a + `}]}}]
- resources: [d]
  providers: [{identity: {}}]
- resources: [e]
  providers:
  - aesgcm: {keys: [{name: k1, secret: ` + key16b + `}]}
  - aescbc: {keys: [{name: k1, secret: ` + key16a + `}]}
  - secretbox: {keys: [{name: k1, secret: ` + key32b + `}]}
  - identity: {}
`

// FuzzTransformFromStorage feeds arbitrary stored bytes (what anyone with
// write access to etcd controls) to every transformer: none may panic, and
// whatever one accepts must not change when written and read again.
func FuzzTransformFromStorage(f *testing.F) {
	for _, seed := range []string{
		"", "k8s\x00", "{}", "k8s:enc:",
		"k8s:enc:aescbc:v1:k1:", "k8s:enc:aescbc:v1:k1:0123456789abcdef",
		"k8s:enc:aescbc:v1:k2:0123456789abcdef0123456789abcdef",
		"k8s:enc:aescbc:v1:k9:0123456789abcdef",
		"k8s:enc:aesgcm:v1:k1:", "k8s:enc:aesgcm:v1:k1:nonce-twelve",
		"k8s:enc:aesgcm:v1:k1:nonce-twelve0123456789abcdef",
		"k8s:enc:secretbox:v1:k1:", "k8s:enc:secretbox:v1:k1:" + string(make([]byte, 40)),
		"k8s:enc:kms:v2:p:xyz",
	} {
		f.Add([]byte(seed))
	}
	c, err := load(f, fuzzConfig)
	if err != nil {
		f.Fatalf("Load: %v", err)
	}
	var trs []value.Transformer
	for _, r := range []string{"a", "b", "c", "d", "e"} {
		trs = append(trs, c.TransformerFor(schema.GroupResource{Resource: r}))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, tr := range trs {
			out, _, err := tr.TransformFromStorage(t.Context(), data, etcdKey)
			if err != nil {
				continue
			}
			stored, err := tr.TransformToStorage(t.Context(), out, etcdKey)
			if err != nil {
				t.Fatalf("rewriting an accepted value: %v", err)
			}
			again, _, err := tr.TransformFromStorage(t.Context(), stored, etcdKey)
			if err != nil || !bytes.Equal(again, out) {
				t.Fatalf("rewritten value reads back as (%q, %v), want %q", again, err, out)
			}
		}
	})
}
