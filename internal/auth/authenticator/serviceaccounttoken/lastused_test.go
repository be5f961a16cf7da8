package serviceaccounttoken

import (
	"context"
	"crypto"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// secretWriter records the Secrets written.
type secretWriter struct{ written []*corev1.Secret }

func (w *secretWriter) UpdateSecret(_ context.Context, s *corev1.Secret) error {
	w.written = append(w.written, s)
	return nil
}

// TestLegacyTokenLastUsed: a legacy token that authenticates labels its
// Secret with today's date, once a day, as kube-apiserver does for the
// legacy token cleaner.
func TestLegacyTokenLastUsed(t *testing.T) {
	f := newFixture(t)
	token := legacy(t, f.key, true, legacyClaimsFor("default-token"))
	now := time.Date(2027, 5, 6, 23, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name      string
		label     string
		wantWrite bool
	}{
		{name: "never recorded", wantWrite: true},
		{name: "recorded yesterday", label: "2027-05-05", wantWrite: true},
		{name: "recorded today", label: "2027-05-06"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := world()
			g.secrets["ns/default-token"] = &corev1.Secret{
				ObjectMeta: meta("ns", "default-token", "tok-uid", nil),
				Type:       corev1.SecretTypeServiceAccountToken,
				Data:       map[string][]byte{corev1.ServiceAccountTokenKey: []byte(token)},
			}
			if tt.label != "" {
				g.secrets["ns/default-token"].Labels = map[string]string{legacyTokenLastUsedLabel: tt.label}
			}
			w := &secretWriter{}
			a := New(Options{Issuers: []string{issuerURL}, Keys: []crypto.PublicKey{f.key.Public()}, APIAudiences: []string{apiAud},
				Lookup: true, Getter: g, SecretWriter: w, Now: func() time.Time { return now }})
			if _, ok, err := a.AuthenticateToken(context.Background(), token); !ok || err != nil {
				t.Fatalf("authenticate: %v %v", ok, err)
			}
			if got := len(w.written) == 1; got != tt.wantWrite {
				t.Fatalf("wrote %d secrets, want a write: %v", len(w.written), tt.wantWrite)
			}
			if tt.wantWrite && w.written[0].Labels[legacyTokenLastUsedLabel] != "2027-05-06" {
				t.Errorf("labels %v, want last used 2027-05-06", w.written[0].Labels)
			}
			if g.secrets["ns/default-token"].Labels[legacyTokenLastUsedLabel] != tt.label {
				t.Error("the Secret read was modified in place")
			}
		})
	}
}
