package etcd3

import (
	"context"
	"errors"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

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
	// Requiring a leader makes a partitioned member end the watch instead
	// of leaving it silently stale.
	wch := k.client.Watch(clientv3.WithRequireLeader(ctx), k.key(key), opts...)
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

// RequestProgress asks etcd for a progress notification on the watch stream
// the backend's watches share.
func (k *etcdKV) RequestProgress(ctx context.Context) error {
	// Watches run on the stream of a leader-requiring context, and progress
	// requests only reach the watches of the stream they are sent on.
	return translate(k.client.RequestProgress(clientv3.WithRequireLeader(ctx)), "")
}
