// Package binpages hands back to the kernel the pages of the kapi binary
// that only its start touched.
//
// Starting kapi runs the init functions of every package the binary holds
// and builds its schemes, handlers and bootstrap data. The kernel maps the
// code and read-only data this touches, and their neighbours (fault-around
// maps 64 KiB around each fault), into the process: about 70 MB of an idle
// server's resident set, against some 30 MB that a running server goes on
// using. Release advises the kernel to reclaim the binary's read-only
// mappings (MADV_PAGEOUT): what the server uses again comes back from the
// page cache or the file on its next access; the rest stays out. Only
// pages no other process maps are reclaimed, and writable mappings (the
// binary's data) are never touched.
package binpages

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// span is one mapping of the executable, [start, end).
type span struct {
	start, end uintptr
}

// fileID names a file as /proc/self/maps does: the device's major and
// minor numbers and the inode.
type fileID struct {
	major, minor uint32
	inode        uint64
}

// readOnlySpans returns the mappings in maps (the format of
// /proc/self/maps) of the file with the id file or the path path that the
// process cannot write. Both are looked at: a binary rebuilt while it runs
// shows as "path (deleted)", and on some overlay file systems a mapping
// shows the device and inode of the layer beneath.
func readOnlySpans(maps io.Reader, file fileID, path string) ([]span, error) {
	var out []span
	sc := bufio.NewScanner(maps)
	for sc.Scan() {
		// start-end perms offset major:minor inode [path]
		f := strings.Fields(sc.Text())
		if len(f) < 5 || len(f[1]) < 2 || f[1][0] != 'r' || f[1][1] != '-' {
			continue
		}
		id, ok := parseFileID(f[3], f[4])
		if !ok || (id != file && (path == "" || mappedPath(f) != path)) {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		out = append(out, span{uintptr(start), uintptr(end)})
	}
	return out, sc.Err()
}

// mappedPath is the path of a maps line's fields, which may hold spaces.
func mappedPath(fields []string) string {
	if len(fields) < 6 {
		return ""
	}
	return strings.Join(fields[5:], " ")
}

func parseFileID(dev, inode string) (fileID, bool) {
	maj, min, ok := strings.Cut(dev, ":")
	if !ok {
		return fileID{}, false
	}
	a, err1 := strconv.ParseUint(maj, 16, 32)
	b, err2 := strconv.ParseUint(min, 16, 32)
	ino, err3 := strconv.ParseUint(inode, 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || ino == 0 {
		return fileID{}, false
	}
	return fileID{uint32(a), uint32(b), ino}, true
}
