// Package portallocator hands out service node ports from a range. The
// used set lives in memory, guarded by a mutex; it is rebuilt from the
// services in storage when the server starts.
package portallocator

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
)

// Errors with upstream's messages.
var (
	ErrFull      = errors.New("range is full")
	ErrAllocated = errors.New("provided port is already allocated")
)

// NotInRangeError says a requested port is outside the node port range.
type NotInRangeError struct {
	ValidPorts string
}

func (e *NotInRangeError) Error() string {
	return fmt.Sprintf("provided port is not in the valid range. The range of valid ports is %s", e.ValidPorts)
}

// Range is a node port range: Base, Base+1, ..., Base+Size-1.
type Range struct {
	Base, Size int
}

// DefaultRange is upstream's default, 30000-32767.
var DefaultRange = Range{Base: 30000, Size: 2768}

func (r Range) String() string {
	return fmt.Sprintf("%d-%d", r.Base, r.Base+r.Size-1)
}

// Contains says whether port is in the range.
func (r Range) Contains(port int) bool {
	return port >= r.Base && port < r.Base+r.Size
}

// Allocator allocates ports of one range. It is safe for concurrent use.
type Allocator struct {
	rng Range
	// staticBand is how many ports at the bottom of the range dynamic
	// allocation takes only when the rest is full (upstream's offset).
	staticBand int
	intN       func(int) int

	mu   sync.Mutex
	used map[int]bool
}

// New returns an allocator of rng with nothing allocated.
func New(rng Range) (*Allocator, error) {
	if rng.Size < 1 || rng.Base < 1 || rng.Base+rng.Size-1 > 65535 {
		return nil, fmt.Errorf("invalid node port range %s", rng)
	}
	return &Allocator{rng: rng, staticBand: staticBand(rng.Size), intN: rand.IntN, used: map[int]bool{}}, nil
}

// staticBand is upstream's offset for a node port range: a
// thirty-second of it, at least 16 and at most 128, or none for ranges
// of 16 ports or fewer.
func staticBand(size int) int {
	if size <= 16 {
		return 0
	}
	return min(max(size/32, 16), 128)
}

// Range is the allocator's range.
func (a *Allocator) Range() Range { return a.rng }

// Allocate claims port.
func (a *Allocator) Allocate(port int) error {
	if !a.rng.Contains(port) {
		return &NotInRangeError{ValidPorts: a.rng.String()}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.used[port] {
		return ErrAllocated
	}
	a.used[port] = true
	return nil
}

// AllocateNext claims a free port, from the upper part of the range first.
func (a *Allocator) AllocateNext() (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	bands := [][2]int{{a.staticBand, a.rng.Size}, {0, a.staticBand}}
	for _, band := range bands {
		n := band[1] - band[0]
		if n <= 0 {
			continue
		}
		start := a.intN(n)
		for i := range n {
			port := a.rng.Base + band[0] + (start+i)%n
			if !a.used[port] {
				a.used[port] = true
				return port, nil
			}
		}
	}
	return 0, ErrFull
}

// Has says whether port is allocated.
func (a *Allocator) Has(port int) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.used[port]
}

// Release frees port; freeing a free port does nothing.
func (a *Allocator) Release(port int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.used, port)
}

// Reset replaces the used set with ports, ignoring those out of range.
func (a *Allocator) Reset(ports []int) {
	used := make(map[int]bool, len(ports))
	for _, p := range ports {
		if a.rng.Contains(p) {
			used[p] = true
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.used = used
}
