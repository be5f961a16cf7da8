package etcd3

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// createAll creates n keys from n members of b at once and returns each
// create's revision and whether it succeeded.
func createAll(t *testing.T, kv *etcdKV, b *CreateBatch, n int, members bool) ([]int64, []bool) {
	t.Helper()
	ctx := WithCreateBatch(t.Context(), b)
	revs, oks := make([]int64, n), make([]bool, n)
	if members {
		b.Join(n)
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if members {
				defer b.Leave(ctx)
			}
			rev, _, ok, err := kv.Put(ctx, fmt.Sprintf("/k/%03d", i), []byte("v"), 0)
			if err != nil {
				t.Errorf("create %d: %v", i, err)
			}
			revs[i], oks[i] = rev, ok
		})
	}
	wg.Wait()
	return revs, oks
}

func distinct(revs []int64) int {
	seen := map[int64]bool{}
	for _, r := range revs {
		seen[r] = true
	}
	return len(seen)
}

func TestCreateBatch(t *testing.T) {
	for _, tc := range []struct {
		name      string
		n         int
		members   bool
		existing  int // index of a key created beforehand, or -1
		wantTxns  int // distinct revisions, when every create succeeds
		wantFails int
	}{
		{name: "members share one commit", n: 40, members: true, existing: -1, wantTxns: 1},
		{name: "more than a transaction holds", n: 2*maxBatchOps + 10, members: true, existing: -1, wantTxns: 3},
		{name: "creates of non-members are not held", n: 5, members: false, existing: -1},
		{name: "an existing key fails only its own create", n: 10, members: true, existing: 3, wantFails: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kv := &etcdKV{client: shared.Client(), prefix: shared.NewPrefix("batch")}
			if tc.existing >= 0 {
				if _, _, ok, err := kv.Put(context.Background(), fmt.Sprintf("/k/%03d", tc.existing), []byte("old"), 0); err != nil || !ok {
					t.Fatalf("creating the existing key: ok=%v err=%v", ok, err)
				}
			}
			revs, oks := createAll(t, kv, &CreateBatch{}, tc.n, tc.members)
			fails := 0
			for i, ok := range oks {
				if !ok {
					fails++
					if i != tc.existing {
						t.Errorf("create %d failed", i)
					}
				}
			}
			if fails != tc.wantFails {
				t.Errorf("%d creates failed, want %d", fails, tc.wantFails)
			}
			if tc.wantTxns > 0 {
				if got := distinct(revs); got != tc.wantTxns {
					t.Errorf("creates committed at %d revisions, want %d", got, tc.wantTxns)
				}
			}
			res, err := kv.Range(context.Background(), "/k/", "/k0", 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.KVs) != tc.n {
				t.Errorf("%d keys stored, want %d", len(res.KVs), tc.n)
			}
		})
	}
}
