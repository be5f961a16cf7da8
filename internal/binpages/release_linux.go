package binpages

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// ErrUnsupported: the kernel cannot be asked to reclaim pages (MADV_PAGEOUT
// came with Linux 5.4).
var ErrUnsupported = errors.New("the kernel has no MADV_PAGEOUT")

// Release advises the kernel to reclaim the pages of the running
// executable's read-only mappings and returns how many bytes of mappings
// it advised.
func Release() (advised uint64, err error) {
	var st unix.Stat_t
	if err := unix.Stat("/proc/self/exe", &st); err != nil {
		return 0, fmt.Errorf("finding the executable: %w", err)
	}
	exe := fileID{unix.Major(st.Dev), unix.Minor(st.Dev), st.Ino}
	path, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return 0, fmt.Errorf("finding the executable: %w", err)
	}
	maps, err := os.Open("/proc/self/maps")
	if err != nil {
		return 0, err
	}
	spans, err := readOnlySpans(maps, exe, path)
	maps.Close()
	if err != nil {
		return 0, fmt.Errorf("reading /proc/self/maps: %w", err)
	}
	for _, s := range spans {
		_, _, errno := unix.Syscall(unix.SYS_MADVISE, s.start, s.end-s.start, unix.MADV_PAGEOUT)
		if errno == unix.EINVAL {
			return advised, ErrUnsupported
		}
		if errno != 0 {
			return advised, fmt.Errorf("madvise %#x-%#x: %w", s.start, s.end, errno)
		}
		advised += uint64(s.end - s.start)
	}
	return advised, nil
}
