package etcd3

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/internal/storage/kvstore"
)

// Watches are spread over watchStreams gRPC streams, and one progress
// request reaches the watches of every stream.
func TestProgressReachesEveryWatchStream(t *testing.T) {
	kv := &etcdKV{client: shared.Client(), prefix: shared.NewPrefix("streams")}
	keys := map[int]string{}
	for i := 0; len(keys) < watchStreams && i < 1000; i++ {
		key := fmt.Sprintf("/resource%d", i)
		if _, ok := keys[watchStreamOf(key)]; !ok {
			keys[watchStreamOf(key)] = key
		}
	}
	if len(keys) != watchStreams {
		t.Fatalf("keys found for %d streams, want %d", len(keys), watchStreams)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	for stream, key := range keys {
		// From the current revision: a watch that starts behind is not
		// answered progress until etcd has caught it up.
		w, err := kv.Watch(ctx, key+"/", key+"0", 0, true)
		if err != nil {
			t.Fatal(err)
		}
		if !progressArrives(ctx, t, kv, w) {
			t.Errorf("the watch on stream %d got no progress notification", stream)
		}
	}
}

// progressArrives asks for progress every 100 ms, as the watch cache
// does (other tests' watches on a stream may be catching up), until w
// reports one, for at most 10 s.
func progressArrives(ctx context.Context, t *testing.T, kv *etcdKV, w kvstore.WatchStream) bool {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	got := make(chan bool, 1)
	go func() {
		resp, ok := w.Next(ctx)
		got <- ok && resp.Progress
	}()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if err := kv.RequestProgress(ctx); err != nil && ctx.Err() == nil {
			t.Error(err)
		}
		select {
		case ok := <-got:
			return ok
		case <-tick.C:
		}
	}
}
