package cacher

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/internal/storage"
)

// askCounter is a storage whose progress requests are reported on asked.
type askCounter struct {
	storage.Interface
	asked chan struct{}
}

func (a askCounter) RequestWatchProgress(context.Context) error {
	a.asked <- struct{}{}
	return nil
}

// A request that starts waiting while the requester sleeps between asks
// gets an ask of its own at once: the revision it needs may be newer than
// the last ask's. Before, it waited for the next interval (100 ms; an
// hour here, so the old code cannot pass).
func TestNewWaiterIsAskedForAtOnce(t *testing.T) {
	for _, idle := range []time.Duration{0, time.Hour} {
		t.Run("idle="+idle.String(), func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			a := askCounter{asked: make(chan struct{}, 10)}
			p := newProgressRequester(a, idle, slog.New(slog.DiscardHandler), func(f func()) bool { go f(); return true })
			p.interval = time.Hour
			p.start(ctx)

			p.waiting(ctx, 1)
			expectAsk(t, a.asked, "the first waiter")
			p.waiting(ctx, 1)
			expectAsk(t, a.asked, "a second waiter")
			p.waiting(ctx, -1)
			p.waiting(ctx, 1)
			expectAsk(t, a.asked, "a waiter arriving after one left")
		})
	}
}

func expectAsk(t *testing.T, asked <-chan struct{}, who string) {
	t.Helper()
	select {
	case <-asked:
	case <-time.After(10 * time.Second):
		t.Fatalf("no progress request for %s", who)
	}
}
