package kvstore

import "testing"

func TestPrefixEnd(t *testing.T) {
	tests := map[string]string{
		"/configmaps/":    "/configmaps0",
		"/a/b/":           "/a/b0",
		"a\xff":           "b",
		"\xff\xff":        "\x00",
		"/registry/x\xff": "/registry/y",
	}
	for in, want := range tests {
		if got := PrefixEnd(in); got != want {
			t.Errorf("PrefixEnd(%q) = %q, want %q", in, got, want)
		}
	}
}
