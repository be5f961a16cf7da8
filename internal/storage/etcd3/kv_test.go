package etcd3

import "testing"

// TestOpPutOwnsItsValue: the Op keeps the value as it was when built,
// whatever happens to the caller's bytes after.
func TestOpPutOwnsItsValue(t *testing.T) {
	value := []byte("k8s\x00value")
	op := opPut("/registry/configmaps/a/b", value)
	copy(value, "XXXXXXXXXXX")
	if got := string(op.ValueBytes()); got != "k8s\x00value" {
		t.Errorf("op value = %q after the caller's bytes changed, want %q", got, "k8s\x00value")
	}
	if got := string(opPut("k", nil).ValueBytes()); got != "" {
		t.Errorf("empty value = %q", got)
	}
}
