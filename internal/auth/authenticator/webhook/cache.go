package webhook

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/kapi-dev/kapi/internal/auth/authenticator"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

// maxCacheEntries bounds the memory a flood of distinct tokens can take.
const maxCacheEntries = 4096

// cache remembers answers (but not errors, which may pass) for a TTL,
// keyed by a keyed hash of the token and the requested audiences: the
// token itself is never kept.
type cache struct {
	next authenticator.Token
	ttl  time.Duration
	now  func() time.Time
	// hashes makes keys with a per-process secret, so a key reveals
	// nothing about its token even to someone who reads memory dumps.
	hashes sync.Pool

	mu      sync.Mutex
	entries map[[sha256.Size]byte]cacheEntry
}

type cacheEntry struct {
	resp    *authenticator.Response
	ok      bool
	expires time.Time
}

func newCache(next authenticator.Token, ttl time.Duration, now func() time.Time) *cache {
	secret := make([]byte, 32)
	_, _ = rand.Read(secret) // crypto/rand does not fail
	return &cache{
		next:    next,
		ttl:     ttl,
		now:     now,
		hashes:  sync.Pool{New: func() any { return hmac.New(sha256.New, secret) }},
		entries: map[[sha256.Size]byte]cacheEntry{},
	}
}

func (c *cache) AuthenticateToken(ctx context.Context, token string) (*authenticator.Response, bool, error) {
	auds, hasAuds := authenticator.AudiencesFrom(ctx)
	key := c.key(token, auds, hasAuds)
	now := c.now()
	c.mu.Lock()
	e, found := c.entries[key]
	c.mu.Unlock()
	if found && now.Before(e.expires) {
		return copyResponse(e.resp), e.ok, nil
	}
	resp, ok, err := c.next.AuthenticateToken(ctx, token)
	if err != nil {
		return nil, false, err
	}
	c.mu.Lock()
	c.makeRoom(now)
	c.entries[key] = cacheEntry{resp: copyResponse(resp), ok: ok, expires: now.Add(c.ttl)}
	c.mu.Unlock()
	return resp, ok, nil
}

// makeRoom drops expired entries when the cache is full, then arbitrary
// ones; c.mu is held.
func (c *cache) makeRoom(now time.Time) {
	if len(c.entries) < maxCacheEntries {
		return
	}
	for k, e := range c.entries {
		if !now.Before(e.expires) {
			delete(c.entries, k)
		}
	}
	for k := range c.entries {
		if len(c.entries) < maxCacheEntries {
			break
		}
		delete(c.entries, k)
	}
}

// key hashes length-prefixed fields, so ("ab", ["c"]) and ("a", ["bc"])
// differ, and "no audiences asked" differs from "an empty list asked".
func (c *cache) key(token string, auds []string, hasAuds bool) [sha256.Size]byte {
	h := c.hashes.Get().(hash.Hash)
	defer c.hashes.Put(h)
	h.Reset()
	var n [8]byte
	writeString := func(s string) {
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	writeString(token)
	if hasAuds {
		binary.BigEndian.PutUint64(n[:], uint64(len(auds))+1)
	} else {
		binary.BigEndian.PutUint64(n[:], 0)
	}
	h.Write(n[:])
	for _, a := range auds {
		writeString(a)
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])
	return key
}

// copyResponse gives each caller its own copy of a cached answer, so one
// request adding a group cannot change what the next one sees.
func copyResponse(r *authenticator.Response) *authenticator.Response {
	if r == nil {
		return nil
	}
	out := &authenticator.Response{Audiences: slices.Clone(r.Audiences)}
	if r.User != nil {
		extra := maps.Clone(r.User.GetExtra())
		for k, v := range extra {
			extra[k] = slices.Clone(v)
		}
		out.User = &user.DefaultInfo{
			Name:   r.User.GetName(),
			UID:    r.User.GetUID(),
			Groups: slices.Clone(r.User.GetGroups()),
			Extra:  extra,
		}
	}
	return out
}
