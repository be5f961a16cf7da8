package storage

import (
	"encoding/base64"
	"testing"
)

func TestContinueRoundTrip(t *testing.T) {
	tests := []struct {
		name, key, prefix string
		rv                int64
		wantKey           string
	}{
		{"namespaced", "/configmaps/ns/b\x00", "/configmaps/ns/", 7, "/configmaps/ns/b\x00"},
		{"cluster", "/configmaps/ns/b\x00", "/configmaps/", 9, "/configmaps/ns/b\x00"},
		{"latest", "/pods/a\x00", "/pods/", -1, "/pods/a\x00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok, err := EncodeContinue(tt.key, tt.prefix, tt.rv)
			if err != nil {
				t.Fatalf("EncodeContinue: %v", err)
			}
			key, rv, err := DecodeContinue(tok, tt.prefix)
			if err != nil {
				t.Fatalf("DecodeContinue: %v", err)
			}
			if key != tt.wantKey || rv != tt.rv {
				t.Errorf("DecodeContinue = (%q, %d), want (%q, %d)", key, rv, tt.wantKey, tt.rv)
			}
		})
	}
}

func TestEncodeContinueWireFormat(t *testing.T) {
	tok, err := EncodeContinue("/configmaps/ns/b\x00", "/configmaps/", 12)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"v":"meta.k8s.io/v1","rv":12,"start":"ns/b\u0000"}`
	if string(raw) != want {
		t.Errorf("token JSON = %s, want %s", raw, want)
	}
}

func TestEncodeContinueOutsidePrefix(t *testing.T) {
	if _, err := EncodeContinue("/secrets/a", "/configmaps/", 1); err == nil {
		t.Error("EncodeContinue accepted a key outside the prefix")
	}
}

func TestDecodeContinueInvalid(t *testing.T) {
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	tests := map[string]string{
		"not base64":      "%%%",
		"not json":        enc("nope"),
		"unknown version": enc(`{"v":"meta.k8s.io/v2","rv":1,"start":"a"}`),
		"zero rv":         enc(`{"v":"meta.k8s.io/v1","rv":0,"start":"a"}`),
		"empty start":     enc(`{"v":"meta.k8s.io/v1","rv":1,"start":""}`),
		"escape prefix":   enc(`{"v":"meta.k8s.io/v1","rv":1,"start":"../secrets/x"}`),
		"dot segments":    enc(`{"v":"meta.k8s.io/v1","rv":1,"start":"a/../../b"}`),
	}
	for name, tok := range tests {
		t.Run(name, func(t *testing.T) {
			_, _, err := DecodeContinue(tok, "/configmaps/")
			if CodeOf(err) != ErrCodeInvalidContinue {
				t.Errorf("DecodeContinue(%q) error = %v, want code ErrCodeInvalidContinue", tok, err)
			}
		})
	}
}

// FuzzDecodeContinue feeds client-supplied continue tokens to the decoder:
// it must never panic, only accept keys inside the list's prefix, and
// reject with ErrCodeInvalidContinue.
func FuzzDecodeContinue(f *testing.F) {
	good, _ := EncodeContinue("/configmaps/ns/b\x00", "/configmaps/ns/", 7)
	for _, seed := range []string{good, "", "garbage", "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6Mywic3RhcnQiOiIuLi94In0"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, token string) {
		key, _, err := DecodeContinue(token, "/configmaps/ns/")
		if err != nil {
			if CodeOf(err) != ErrCodeInvalidContinue {
				t.Fatalf("error %v has code %d", err, CodeOf(err))
			}
			return
		}
		if len(key) <= len("/configmaps/ns/") || key[:len("/configmaps/ns/")] != "/configmaps/ns/" {
			t.Fatalf("token %q decoded to key %q outside the prefix", token, key)
		}
	})
}
