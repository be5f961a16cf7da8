package storage

import (
	"errors"
	"testing"
)

func TestCheckKey(t *testing.T) {
	const prefix = "/registry/configmaps"
	cases := []struct {
		key string
		ok  bool
	}{
		{"/registry/configmaps", true},
		{"/registry/configmaps/ns", true},
		{"/registry/configmaps/ns/name", true},
		{"/registry/configmapsx/ns/name", false}, // a sibling folder sharing the prefix
		{"/registry/configmaps-other", false},
		{"/registry/config", false},
		{"/registry/secrets/ns/name", false},
		{"", false},
		{"/registry/configmaps/ns/../../secrets/ns/name", false},
		{"/registry/configmaps/./ns", false},
	}
	for _, tc := range cases {
		err := CheckKey(tc.key, prefix)
		if (err == nil) != tc.ok {
			t.Errorf("CheckKey(%q) = %v, want ok=%v", tc.key, err, tc.ok)
		}
		var se *Error
		if err != nil && !errors.As(err, &se) {
			t.Errorf("CheckKey(%q) error %T is not a *Error", tc.key, err)
		}
	}
}

// A prefix past 32 bytes is what made the old prefix+"/" check allocate.
func TestCheckKeyDoesNotAllocate(t *testing.T) {
	const prefix = "/registry/flowcontrol.apiserver.k8s.io/prioritylevelconfigurations"
	allocs := testing.AllocsPerRun(100, func() {
		_ = CheckKey(prefix+"/exempt", prefix)
	})
	if allocs != 0 {
		t.Errorf("CheckKey allocates %v times per call, want 0", allocs)
	}
}
