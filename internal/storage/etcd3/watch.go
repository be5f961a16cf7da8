package etcd3

import (
	"context"
	"errors"
	"hash/fnv"
	"strconv"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/metadata"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/kvstore"
)

// Watch starts an etcd watch with previous values and converts its
// responses. The goroutine ends when ctx is done or etcd ends the watch; a
// compaction arrives as a response with an ErrCodeExpired error.
func (k *etcdKV) Watch(ctx context.Context, key, end string, rev int64, progressNotify bool) (kvstore.WatchStream, error) {
	opts := []clientv3.OpOption{clientv3.WithRev(rev), clientv3.WithPrevKV()}
	if end != "" {
		opts = append(opts, clientv3.WithRange(k.rangeEnd(end)))
	}
	if progressNotify {
		opts = append(opts, clientv3.WithProgressNotify())
	}
	wch := k.client.Watch(watchStreamContext(ctx, watchStreamOf(key)), k.key(key), opts...)
	out := make(chan kvstore.WatchResponse)
	k.wg.Add(1)
	go func() {
		defer k.wg.Done()
		defer close(out)
		for wres := range wch {
			resp, last := k.convert(wres, key)
			select {
			case out <- resp:
			case <-ctx.Done():
				return
			}
			if last {
				return
			}
		}
	}()
	return kvstore.ChanStream(out), nil
}

// convert maps one etcd watch response; last is true when it ends the watch.
func (k *etcdKV) convert(wres clientv3.WatchResponse, key string) (resp kvstore.WatchResponse, last bool) {
	if err := wres.Err(); err != nil {
		if errors.Is(err, rpctypes.ErrCompacted) || wres.CompactRevision != 0 {
			err = &storage.Error{Code: storage.ErrCodeExpired, Key: key, ResourceVersion: wres.CompactRevision, Err: err}
		} else {
			err = translate(err, key)
		}
		return kvstore.WatchResponse{Err: err}, true
	}
	if wres.IsProgressNotify() {
		return kvstore.WatchResponse{Progress: true, Revision: wres.Header.Revision}, false
	}
	resp.Revision = wres.Header.Revision
	resp.Events = make([]kvstore.Event, len(wres.Events))
	for i, ev := range wres.Events {
		e := kvstore.Event{Type: kvstore.EventPut, KV: k.fromEtcd(ev.Kv), Created: ev.IsCreate()}
		if ev.Type == clientv3.EventTypeDelete {
			e.Type = kvstore.EventDelete
		}
		if ev.PrevKv != nil {
			prev := k.fromEtcd(ev.PrevKv)
			e.PrevKV = &prev
		}
		resp.Events[i] = e
	}
	return resp, false
}

// RequestProgress asks etcd for a progress notification on every watch
// stream of the backend: a progress request only reaches the watches of
// the stream it is sent on.
func (k *etcdKV) RequestProgress(ctx context.Context) error {
	errs := make([]error, watchStreams)
	for i := range watchStreams {
		errs[i] = translate(k.client.RequestProgress(watchStreamContext(ctx, i)), "")
	}
	return errors.Join(errs...)
}

// watchStreams is how many gRPC streams the backend's watches are spread
// over. The etcd client opens one stream per distinct context metadata,
// and creates the watches of a stream one at a time, each waiting for
// etcd's answer: a server's 60-odd watch caches took 25 ms to start on one
// stream. etcd also answers a progress request on a stream only once
// every watch of it has caught up, which fewer watches per stream makes
// sooner.
const watchStreams = 4

// watchStreamOf picks key's stream.
func watchStreamOf(key string) int {
	h := fnv.New32a()
	h.Write([]byte(key))
	return int(h.Sum32() % watchStreams)
}

// watchStreamContext is the context of stream i's watches and progress
// requests. Requiring a leader makes a partitioned member end the watch
// instead of leaving it silently stale.
func watchStreamContext(ctx context.Context, i int) context.Context {
	return metadata.AppendToOutgoingContext(clientv3.WithRequireLeader(ctx), "kapi-watch-stream", strconv.Itoa(i))
}
