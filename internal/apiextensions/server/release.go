package server

import "sync"

// users counts the requests served from one servedCRD, so that its
// storage (the watch cache) is released only after the last of them: a
// CRD change retires the old servedCRD, and whoever is last, Sync or a
// request, destroys its store. Watches are not counted: destroying the
// store ends them, and their clients watch the new one, as upstream ends
// watches when a CRD changes.
type users struct {
	mu      sync.Mutex
	n       int
	retired bool
	release func()
}

func newUsers(release func()) *users { return &users{release: release} }

// acquire counts a request in; false once retired (the request must look
// the CRD up again: the snapshot has been replaced already).
func (u *users) acquire() bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.retired {
		return false
	}
	u.n++
	return true
}

// done counts a request out, releasing a retired storage after the last.
func (u *users) done() {
	u.mu.Lock()
	u.n--
	last := u.retired && u.n == 0
	u.mu.Unlock()
	if last {
		u.release()
	}
}

// retire releases the storage now, or after the requests still using it.
func (u *users) retire() {
	u.mu.Lock()
	if u.retired {
		u.mu.Unlock()
		return
	}
	u.retired = true
	last := u.n == 0
	u.mu.Unlock()
	if last {
		u.release()
	}
}
