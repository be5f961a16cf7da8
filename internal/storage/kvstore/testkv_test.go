package kvstore

import (
	"context"
	"maps"
	"slices"
	"sync"
)

// testKV is a small KV for this package's tests: latest-revision reads,
// compare-and-swap writes and watches replayed from a full history. It
// lets a test read the raw stored bytes. Range ignores rev and paging
// beyond limit; the conformance suite covers those on real backends.
type testKV struct {
	mu       sync.Mutex
	rev      int64
	data     map[string]KeyValue
	history  []Event
	watchers map[*testWatch]struct{}
}

type testWatch struct {
	key, end string
	ch       chan WatchResponse
}

func newTestKV() *testKV {
	return &testKV{data: map[string]KeyValue{}, watchers: map[*testWatch]struct{}{}}
}

// raw returns the stored bytes at key.
func (k *testKV) raw(key string) ([]byte, int64, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	kv, ok := k.data[key]
	return kv.Value, kv.ModRevision, ok
}

func inRange(k, key, end string) bool {
	if end == "" {
		return k == key
	}
	return k >= key && (end == "\x00" || k < end)
}

func (k *testKV) Range(_ context.Context, key, end string, _, limit int64) (RangeResult, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	res := RangeResult{Revision: k.rev}
	for _, name := range slices.Sorted(maps.Keys(k.data)) {
		if !inRange(name, key, end) {
			continue
		}
		res.Count++
		if limit > 0 && int64(len(res.KVs)) == limit {
			res.More = true
			continue
		}
		res.KVs = append(res.KVs, k.data[name])
	}
	return res, nil
}

func (k *testKV) Count(ctx context.Context, key, end string) (int64, error) {
	res, err := k.Range(ctx, key, end, 0, 0)
	return res.Count, err
}

func (k *testKV) Revision(context.Context) (int64, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.rev, nil
}

func (k *testKV) Put(_ context.Context, key string, value []byte, expected int64) (int64, *KeyValue, bool, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	prev, exists := k.data[key]
	if cur, ok := k.compare(key, expected); !ok {
		return 0, cur, false, nil
	}
	k.rev++
	kv := KeyValue{Key: key, Value: value, ModRevision: k.rev}
	k.data[key] = kv
	ev := Event{Type: EventPut, KV: kv, Created: !exists}
	if exists {
		ev.PrevKV = &prev
	}
	k.publish(ev)
	return k.rev, nil, true, nil
}

func (k *testKV) Delete(_ context.Context, key string, expected int64) (int64, *KeyValue, bool, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	prev := k.data[key]
	if cur, ok := k.compare(key, expected); !ok || expected == 0 {
		return 0, cur, false, nil
	}
	k.rev++
	delete(k.data, key)
	k.publish(Event{Type: EventDelete, KV: KeyValue{Key: key, ModRevision: k.rev}, PrevKV: &prev})
	return k.rev, nil, true, nil
}

// compare checks key's ModRevision against expected (0: absent).
func (k *testKV) compare(key string, expected int64) (*KeyValue, bool) {
	cur, ok := k.data[key]
	if !ok {
		return nil, expected == 0
	}
	return &cur, cur.ModRevision == expected
}

// publish records ev and hands it to matching watches; the buffers are
// large enough for every test here.
func (k *testKV) publish(ev Event) {
	k.history = append(k.history, ev)
	for w := range k.watchers {
		if inRange(ev.KV.Key, w.key, w.end) {
			w.ch <- WatchResponse{Events: []Event{ev}, Revision: ev.KV.ModRevision}
		}
	}
}

func (k *testKV) Watch(ctx context.Context, key, end string, rev int64, _ bool) (WatchStream, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	w := &testWatch{key: key, end: end, ch: make(chan WatchResponse, 100)}
	for _, ev := range k.history {
		if ev.KV.ModRevision >= rev && inRange(ev.KV.Key, key, end) {
			w.ch <- WatchResponse{Events: []Event{ev}, Revision: ev.KV.ModRevision}
		}
	}
	k.watchers[w] = struct{}{}
	context.AfterFunc(ctx, func() {
		k.mu.Lock()
		defer k.mu.Unlock()
		delete(k.watchers, w)
		close(w.ch)
	})
	return ChanStream(w.ch), nil
}

func (k *testKV) RequestProgress(context.Context) error { return nil }
