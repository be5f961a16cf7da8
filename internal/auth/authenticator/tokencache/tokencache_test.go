package tokencache

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/internal/auth/authenticator"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

// counting answers "good" as alice and counts its calls.
type counting struct{ calls int }

func (c *counting) AuthenticateToken(_ context.Context, token string) (*authenticator.Response, bool, error) {
	c.calls++
	switch token {
	case "good":
		return &authenticator.Response{User: &user.DefaultInfo{Name: "alice"}}, true, nil
	case "bad":
		return nil, false, errors.New("invalid token")
	}
	return nil, false, nil
}

func TestCache(t *testing.T) {
	clock := time.Unix(1000, 0)
	tests := []struct {
		name      string
		steps     func(c *Cache, ctx context.Context)
		wantCalls int
	}{
		{"a success is answered from memory", func(c *Cache, ctx context.Context) {
			c.AuthenticateToken(ctx, "good")
			c.AuthenticateToken(ctx, "good")
		}, 1},
		{"after the ttl the token is checked again", func(c *Cache, ctx context.Context) {
			c.AuthenticateToken(ctx, "good")
			clock = clock.Add(11 * time.Second)
			c.AuthenticateToken(ctx, "good")
		}, 2},
		{"failures are not cached", func(c *Cache, ctx context.Context) {
			c.AuthenticateToken(ctx, "bad")
			c.AuthenticateToken(ctx, "bad")
			c.AuthenticateToken(ctx, "unknown")
			c.AuthenticateToken(ctx, "unknown")
		}, 4},
		{"other audiences are another entry", func(c *Cache, ctx context.Context) {
			c.AuthenticateToken(ctx, "good")
			c.AuthenticateToken(authenticator.WithAudiences(ctx, []string{"other"}), "good")
		}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inner := &counting{}
			c := New(inner, 10*time.Second)
			c.now = func() time.Time { return clock }
			tt.steps(c, context.Background())
			if inner.calls != tt.wantCalls {
				t.Errorf("inner called %d times, want %d", inner.calls, tt.wantCalls)
			}
		})
	}
}

func TestCacheAnswers(t *testing.T) {
	c := New(&counting{}, time.Minute)
	for range 2 {
		resp, ok, err := c.AuthenticateToken(context.Background(), "good")
		if !ok || err != nil || resp.User.GetName() != "alice" {
			t.Fatalf("got %v %v %v", resp, ok, err)
		}
	}
	if _, ok, err := c.AuthenticateToken(context.Background(), "bad"); ok || err == nil {
		t.Fatalf("bad token: ok %v err %v", ok, err)
	}
}

func TestCacheIsBounded(t *testing.T) {
	inner := &counting{}
	good := authenticator.TokenFunc(func(ctx context.Context, token string) (*authenticator.Response, bool, error) {
		return inner.AuthenticateToken(ctx, "good")
	})
	c := New(good, time.Minute)
	for i := range maxEntries + 10 {
		c.AuthenticateToken(context.Background(), string(rune('a'+i%26))+time.Duration(i).String())
	}
	if n := len(c.entries); n > maxEntries {
		t.Errorf("%d entries, want at most %d", n, maxEntries)
	}
}
