package policy

import (
	"context"
	"errors"
	"testing"
)

func TestSnapshotRebuildsOnlyWhenDirty(t *testing.T) {
	var s Snapshot[int]
	builds := 0
	fail := errors.New("list failed")
	var next error
	build := func() ([]int, error) {
		builds++
		if next != nil {
			return nil, next
		}
		return []int{builds}, nil
	}
	steps := []struct {
		name       string
		dirty, err bool
		want       int // builds after the step
	}{
		{"first request builds", false, false, 1},
		{"clean snapshot is reused", false, false, 1},
		{"a change rebuilds", true, false, 2},
		{"a failed build", true, true, 3},
		{"stays dirty after a failure", false, false, 4},
	}
	for _, st := range steps {
		if st.dirty {
			s.dirty.Store(true)
		}
		next = nil
		if st.err {
			next = fail
		}
		_, err := s.Get(context.Background(), build)
		if (err != nil) != st.err || builds != st.want {
			t.Fatalf("%s: err %v, builds %d, want err %v, builds %d", st.name, err, builds, st.err, st.want)
		}
	}
}
