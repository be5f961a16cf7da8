package resourceclaim

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

// TestUIDSetForgetsTheOldest: the set keeps the last n UIDs added, the
// oldest going first; adding one it holds changes nothing.
func TestUIDSetForgetsTheOldest(t *testing.T) {
	s := newUIDSet(2)
	for _, uid := range []types.UID{"a", "b", "b", "c", "d"} {
		s.add(uid)
	}
	for uid, want := range map[types.UID]bool{"a": false, "b": false, "c": true, "d": true} {
		if got := s.has(uid); got != want {
			t.Errorf("has(%s) = %v, want %v", uid, got, want)
		}
	}
}
