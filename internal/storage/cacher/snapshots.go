package cacher

import (
	"sort"

	"github.com/google/btree"
)

// snapshot is the cache's objects as they were at revision rv. Its tree is
// a copy-on-write clone of the live one: it shares every node the live tree
// has not changed since, and nobody writes to it.
type snapshot struct {
	rv    uint64
	items *btree.BTreeG[*item]
}

// snapshots is the bounded history of the cache's states, oldest first,
// one per change the ring of recent changes still holds plus the state the
// ring starts from. Continued pages of a list read the state at their
// token's revision from here (upstream's ListFromCacheSnapshot). The state
// lock guards it.
type snapshots struct {
	list []snapshot
}

// reset keeps only the state at rv: a fresh list, or nothing (tree nil).
func (s *snapshots) reset(rv uint64, tree *btree.BTreeG[*item]) {
	clear(s.list)
	s.list = s.list[:0]
	if tree != nil {
		s.list = append(s.list, snapshot{rv: rv, items: tree.Clone()})
	}
}

// add records the live tree as the state at rv, which is newer than every
// state recorded so far.
func (s *snapshots) add(rv uint64, live *btree.BTreeG[*item]) {
	s.list = append(s.list, snapshot{rv: rv, items: live.Clone()})
}

// dropBefore forgets the states no read at floor or later needs: all but
// the newest one at or below floor.
func (s *snapshots) dropBefore(floor uint64) {
	n := 0
	for n+1 < len(s.list) && s.list[n+1].rv <= floor {
		n++
	}
	if n == 0 {
		return
	}
	clear(s.list[:n]) // do not pin the dropped trees
	s.list = s.list[n:]
}

// at returns the state at revision rv: the newest one recorded at or
// below it. The caller checks that rv is within the ring's reach and not
// newer than the cache.
func (s *snapshots) at(rv uint64) (*btree.BTreeG[*item], bool) {
	i := sort.Search(len(s.list), func(i int) bool { return s.list[i].rv > rv })
	if i == 0 {
		return nil, false
	}
	return s.list[i-1].items, true
}

// len is the number of states kept, for tests.
func (s *snapshots) len() int { return len(s.list) }
