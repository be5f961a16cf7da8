// Package tokencache remembers successful token authentications for a
// short time, as kube-apiserver does in front of its token authenticators:
// verifying a service-account or OIDC token costs an RSA check and storage
// reads, and a client sends the same token with every request.
package tokencache

import (
	"context"
	"crypto/sha256"
	"strings"
	"sync"
	"time"

	"github.com/kapi-dev/kapi/internal/auth/authenticator"
)

// maxEntries bounds the memory a flood of distinct tokens can take.
const maxEntries = 4096

type entry struct {
	resp    *authenticator.Response
	expires time.Time
}

// Cache is a token authenticator that answers repeated tokens from memory.
type Cache struct {
	inner authenticator.Token
	ttl   time.Duration
	now   func() time.Time

	mu      sync.Mutex
	entries map[[sha256.Size]byte]entry
}

// New caches the successes of inner for ttl. Failures are not cached, so a
// token that starts to work (a new static token, a created secret) works
// at once.
func New(inner authenticator.Token, ttl time.Duration) *Cache {
	return &Cache{inner: inner, ttl: ttl, now: time.Now, entries: map[[sha256.Size]byte]entry{}}
}

// AuthenticateToken implements authenticator.Token. The key is a hash of
// the token and the requested audiences: the token itself is never kept.
func (c *Cache) AuthenticateToken(ctx context.Context, token string) (*authenticator.Response, bool, error) {
	auds, _ := authenticator.AudiencesFrom(ctx)
	key := sha256.Sum256([]byte(strings.Join(auds, "\x00") + "\x00\x00" + token))
	now := c.now()
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if ok && now.Before(e.expires) {
		return e.resp, true, nil
	}
	resp, ok, err := c.inner.AuthenticateToken(ctx, token)
	if !ok || err != nil {
		return resp, ok, err
	}
	c.mu.Lock()
	if len(c.entries) >= maxEntries {
		c.evictLocked(now)
	}
	c.entries[key] = entry{resp: resp, expires: now.Add(c.ttl)}
	c.mu.Unlock()
	return resp, true, nil
}

// evictLocked drops expired entries, or everything when none expired.
func (c *Cache) evictLocked(now time.Time) {
	for k, e := range c.entries {
		if !now.Before(e.expires) {
			delete(c.entries, k)
		}
	}
	if len(c.entries) >= maxEntries {
		clear(c.entries)
	}
}
