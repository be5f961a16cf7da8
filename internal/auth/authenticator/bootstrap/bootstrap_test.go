package bootstrap

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/auth/user"
)

const (
	tokenID     = "abcdef"
	tokenSecret = "0123456789abcdef"
	goodToken   = tokenID + "." + tokenSecret
)

var now = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// secret returns a valid token Secret changed by mutate.
func secret(mutate func(*corev1.Secret)) *corev1.Secret {
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: SecretPrefix + tokenID},
		Type:       corev1.SecretTypeBootstrapToken,
		Data: map[string][]byte{
			keyTokenID:     []byte(tokenID),
			keyTokenSecret: []byte(tokenSecret),
			keyUsageAuthn:  []byte("true"),
			keyExpiration:  []byte(now.Add(time.Hour).Format(time.RFC3339)),
		},
	}
	if mutate != nil {
		mutate(s)
	}
	return s
}

func setData(key, value string) func(*corev1.Secret) {
	return func(s *corev1.Secret) { s.Data[key] = []byte(value) }
}

func deleteData(key string) func(*corev1.Secret) {
	return func(s *corev1.Secret) { delete(s.Data, key) }
}

func getter(s *corev1.Secret, err error, asked *[]string) SecretGetter {
	return func(_ context.Context, name string) (*corev1.Secret, error) {
		*asked = append(*asked, name)
		if err != nil {
			return nil, err
		}
		if s == nil || s.Name != name {
			return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "secrets"}, name)
		}
		return s, nil
	}
}

var errEtcd = errors.New("etcdserver: request timed out")

func TestAuthenticateToken(t *testing.T) {
	secretName := SecretPrefix + tokenID
	tests := []struct {
		name       string
		token      string
		secret     *corev1.Secret
		getErr     error
		wantGroups []string // nil: not authenticated
		wantErr    error
		wantAsked  bool
	}{
		{name: "valid", token: goodToken, secret: secret(nil), wantAsked: true,
			wantGroups: []string{"system:bootstrappers"}},
		{name: "no expiration", token: goodToken, secret: secret(deleteData(keyExpiration)), wantAsked: true,
			wantGroups: []string{"system:bootstrappers"}},
		{name: "extra groups sorted and deduplicated", token: goodToken, wantAsked: true,
			secret:     secret(setData(keyExtraGroups, "system:bootstrappers:worker,system:bootstrappers:a:b-c,system:bootstrappers:worker")),
			wantGroups: []string{"system:bootstrappers", "system:bootstrappers:a:b-c", "system:bootstrappers:worker"}},
		{name: "extra group outside system:bootstrappers:", token: goodToken, wantAsked: true,
			secret: secret(setData(keyExtraGroups, "system:bootstrappers:worker,system:masters"))},
		{name: "extra group with a space", token: goodToken, wantAsked: true,
			secret: secret(setData(keyExtraGroups, "system:bootstrappers:a, system:bootstrappers:b"))},
		{name: "extra group ending in a colon", token: goodToken, wantAsked: true,
			secret: secret(setData(keyExtraGroups, "system:bootstrappers:a:"))},
		{name: "extra group list with an empty entry", token: goodToken, wantAsked: true,
			secret: secret(setData(keyExtraGroups, "system:bootstrappers:a,"))},
		{name: "bare default group as extra", token: goodToken, wantAsked: true,
			secret: secret(setData(keyExtraGroups, "system:bootstrappers"))},
		{name: "wrong secret", token: tokenID + ".fedcba9876543210", secret: secret(nil), wantAsked: true},
		{name: "secret of another length", token: goodToken, secret: secret(setData(keyTokenSecret, tokenSecret+"0")), wantAsked: true},
		{name: "token-id mismatch", token: goodToken, secret: secret(setData(keyTokenID, "zzzzzz")), wantAsked: true},
		{name: "token-id missing", token: goodToken, secret: secret(deleteData(keyTokenID)), wantAsked: true},
		{name: "expired", token: goodToken, secret: secret(setData(keyExpiration, now.Add(-time.Second).Format(time.RFC3339))), wantAsked: true},
		{name: "expiring right now", token: goodToken, secret: secret(setData(keyExpiration, now.Format(time.RFC3339))), wantAsked: true},
		{name: "expiration in another zone", token: goodToken, wantAsked: true,
			secret:     secret(setData(keyExpiration, "2026-05-01T13:00:01+01:00")),
			wantGroups: []string{"system:bootstrappers"}},
		{name: "unparseable expiration counts as expired", token: goodToken, secret: secret(setData(keyExpiration, "tomorrow")), wantAsked: true},
		{name: "usage not true", token: goodToken, secret: secret(setData(keyUsageAuthn, "True")), wantAsked: true},
		{name: "usage missing", token: goodToken, secret: secret(deleteData(keyUsageAuthn)), wantAsked: true},
		{name: "wrong type", token: goodToken, secret: secret(func(s *corev1.Secret) { s.Type = corev1.SecretTypeOpaque }), wantAsked: true},
		{name: "no data", token: goodToken, secret: secret(func(s *corev1.Secret) { s.Data = nil }), wantAsked: true},
		{name: "being deleted", token: goodToken, wantAsked: true,
			secret: secret(func(s *corev1.Secret) { s.DeletionTimestamp = &metav1.Time{Time: now} })},
		{name: "no secret", token: goodToken, wantAsked: true},
		{name: "getter returns nothing", token: goodToken, secret: &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "other"}}, wantAsked: true},
		{name: "read failure is an error", token: goodToken, getErr: errEtcd, wantErr: errEtcd, wantAsked: true},
		{name: "uppercase", token: strings.ToUpper(goodToken), secret: secret(nil)},
		{name: "short id", token: "abcde.0123456789abcdef", secret: secret(nil)},
		{name: "long secret", token: goodToken + "0", secret: secret(nil)},
		{name: "no dot", token: tokenID + "-" + tokenSecret, secret: secret(nil)},
		{name: "not a bootstrap token", token: "eyJhbGciOiJSUzI1NiJ9.e30.sig", secret: secret(nil)},
		{name: "empty", token: "", secret: secret(nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked []string
			auth := NewWithClock(getter(tt.secret, tt.getErr, &asked), func() time.Time { return now })
			resp, ok, err := auth.AuthenticateToken(context.Background(), tt.token)
			if !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if ok != (tt.wantGroups != nil) {
				t.Fatalf("ok = %v, want %v", ok, tt.wantGroups != nil)
			}
			if wantAsked := []string{secretName}; tt.wantAsked != (len(asked) > 0) || (tt.wantAsked && !cmp.Equal(asked, wantAsked)) {
				t.Errorf("secrets read = %q, want read %v", asked, tt.wantAsked)
			}
			if !ok {
				if resp != nil {
					t.Errorf("response %+v without ok", resp)
				}
				return
			}
			want := &user.DefaultInfo{Name: "system:bootstrap:" + tokenID, Groups: tt.wantGroups}
			if diff := cmp.Diff(want, resp.User); diff != "" {
				t.Errorf("user (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewUsesWallClock(t *testing.T) {
	var asked []string
	valid := secret(setData(keyExpiration, time.Now().Add(time.Hour).Format(time.RFC3339)))
	if _, ok, err := New(getter(valid, nil, &asked)).AuthenticateToken(context.Background(), goodToken); !ok || err != nil {
		t.Errorf("unexpired token: ok %v, err %v", ok, err)
	}
	past := secret(setData(keyExpiration, time.Now().Add(-time.Hour).Format(time.RFC3339)))
	if _, ok, err := New(getter(past, nil, &asked)).AuthenticateToken(context.Background(), goodToken); ok || err != nil {
		t.Errorf("expired token: ok %v, err %v", ok, err)
	}
}

// FuzzBootstrapToken checks token parsing never panics, accepts only the
// exact "<6>.<16>" lower-case alphanumeric form, and that the authenticator
// never reads a Secret for anything else.
func FuzzBootstrapToken(f *testing.F) {
	for _, s := range []string{goodToken, "", ".", "abcdef.", "ABCDEF.0123456789ABCDEF", "abcdef.0123456789abcde\xff",
		"abcdef:0123456789abcdef", "abcdefg0123456789abcdef", "\u00e9bcde.0123456789abcdef", "abcdef.0123456789abcdef\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, token string) {
		id, sec, ok := parseToken(token)
		wellFormed := len(token) == 23 && token[6] == '.' &&
			strings.Trim(token[:6]+token[7:], "abcdefghijklmnopqrstuvwxyz0123456789") == ""
		if ok != wellFormed {
			t.Fatalf("parseToken(%q) ok = %v, want %v", token, ok, wellFormed)
		}
		if ok && id+"."+sec != token {
			t.Fatalf("parseToken(%q) = %q, %q", token, id, sec)
		}
		var asked []string
		resp, authOK, err := NewWithClock(getter(secret(nil), nil, &asked), func() time.Time { return now }).
			AuthenticateToken(context.Background(), token)
		if err != nil {
			t.Fatalf("AuthenticateToken(%q) error %v", token, err)
		}
		if !ok && len(asked) != 0 {
			t.Fatalf("malformed token %q read secret %q", token, asked)
		}
		if authOK != (token == goodToken) || (authOK && resp.User.GetName() != "system:bootstrap:"+tokenID) {
			t.Fatalf("AuthenticateToken(%q) = %v, ok %v", token, resp, authOK)
		}
	})
}

func BenchmarkAuthenticateToken(b *testing.B) {
	s := secret(setData(keyExtraGroups, "system:bootstrappers:worker"))
	auth := NewWithClock(func(context.Context, string) (*corev1.Secret, error) { return s, nil }, func() time.Time { return now })
	ctx := context.Background()
	for b.Loop() {
		if _, ok, _ := auth.AuthenticateToken(ctx, goodToken); !ok {
			b.Fatal("not authenticated")
		}
	}
}

// upstreamGroupPattern is the cluster-bootstrap pattern validExtraGroup
// implements by hand; the tests hold one to the other.
var upstreamGroupPattern = regexp.MustCompile(`\Asystem:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]\z`)

func TestValidExtraGroup(t *testing.T) {
	long := "system:bootstrappers:" + strings.Repeat("a", 256)
	for _, g := range []string{
		"system:bootstrappers:a", "system:bootstrappers:worker-1:x", "system:bootstrappers:0",
		long, long + "a", "system:bootstrappers:", "system:bootstrappers", "system:bootstrappers:a-",
		"system:bootstrappers:a:", "system:bootstrappers:A", "system:bootstrappers::a", "system:bootstrappers:-a",
		"system:bootstrappers:a b", "system:masters", "", "system:bootstrappers:a\n",
	} {
		if got, want := validExtraGroup(g), upstreamGroupPattern.MatchString(g); got != want {
			t.Errorf("validExtraGroup(%q) = %v, want %v", g, got, want)
		}
	}
}

func FuzzExtraGroup(f *testing.F) {
	for _, s := range []string{"a", "a-b:c", "", "-", "a:", "A", "\xff", strings.Repeat("z", 256)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, suffix string) {
		g := "system:bootstrappers:" + suffix
		if got, want := validExtraGroup(g), upstreamGroupPattern.MatchString(g); got != want {
			t.Fatalf("validExtraGroup(%q) = %v, want %v", g, got, want)
		}
	})
}
