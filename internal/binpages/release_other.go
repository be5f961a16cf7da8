//go:build !linux

package binpages

import "errors"

// ErrUnsupported: only Linux can be asked to reclaim a mapping's pages.
var ErrUnsupported = errors.New("releasing the binary's pages needs Linux")

// Release does nothing outside Linux.
func Release() (uint64, error) { return 0, ErrUnsupported }
