package identity

import (
	"errors"
	"testing"

	"github.com/kapi-dev/kapi/internal/storage/value"
)

func TestIdentity(t *testing.T) {
	tr := NewEncryptCheckTransformer()
	etcd := value.DefaultContext("/registry/configmaps/ns/a")
	tests := []struct {
		in      string
		wantErr error
	}{
		{in: "k8s\x00\n\x0fprotobuf"},
		{in: `{"kind":"ConfigMap"}`},
		{in: ""},
		{in: "k8s:enc:aescbc:v1:key1:xxxx", wantErr: ErrEncryptedData},
		{in: "k8s:enc:", wantErr: ErrEncryptedData},
	}
	for _, tt := range tests {
		got, stale, err := tr.TransformFromStorage(t.Context(), []byte(tt.in), etcd)
		if !errors.Is(err, tt.wantErr) {
			t.Errorf("read %q: err = %v, want %v", tt.in, err, tt.wantErr)
			continue
		}
		if err == nil && (string(got) != tt.in || stale) {
			t.Errorf("read %q = (%q, stale=%v)", tt.in, got, stale)
		}
		out, err := tr.TransformToStorage(t.Context(), []byte(tt.in), etcd)
		if err != nil || string(out) != tt.in {
			t.Errorf("write %q = (%q, %v)", tt.in, out, err)
		}
	}
}
