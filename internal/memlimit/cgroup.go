package memlimit

import (
	"bufio"
	"io/fs"
	"log/slog"
	"path"
	"strconv"
	"strings"
)

// cgroupCeiling is ceilingFraction of the memory limit of the cgroup the
// process runs in, or 0 when there is none (or it cannot be read). It
// reads cgroup v2's memory.max, then v1's memory.limit_in_bytes, at the
// process's own cgroup path; root is the file system root. Only the
// limit of the process's own cgroup counts; a parent's is not looked for.
func cgroupCeiling(root fs.FS, logger *slog.Logger) uint64 {
	v2, v1 := cgroupPaths(root)
	// Inside a container the cgroup's own directory is often mounted as
	// the root of the hierarchy, so the roots are tried after the paths.
	candidates := []string{
		path.Join("sys/fs/cgroup", v2, "memory.max"),
		path.Join("sys/fs/cgroup/memory", v1, "memory.limit_in_bytes"),
		"sys/fs/cgroup/memory.max",
		"sys/fs/cgroup/memory/memory.limit_in_bytes",
	}
	for _, p := range candidates {
		b, err := fs.ReadFile(root, p)
		if err != nil {
			continue
		}
		v := strings.TrimSpace(string(b))
		if v == "max" {
			return 0
		}
		n, err := strconv.ParseUint(v, 10, 64)
		// cgroup v1 writes a huge page-aligned number for "no limit".
		if err != nil || n >= 1<<62 {
			return 0
		}
		logger.Debug("memory limit capped by the cgroup's", "file", "/"+p, "bytes", n)
		return uint64(float64(n) * ceilingFraction)
	}
	return 0
}

// cgroupPaths reads /proc/self/cgroup: the unified (v2) path and the v1
// memory controller's path, either empty when absent.
func cgroupPaths(root fs.FS) (v2, v1 string) {
	f, err := root.Open("proc/self/cgroup")
	if err != nil {
		return "", ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// hierarchy-ID:controller-list:path
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			v2 = parts[2]
		case hasController(parts[1], "memory"):
			v1 = parts[2]
		}
	}
	return v2, v1
}

func hasController(list, name string) bool {
	for c := range strings.SplitSeq(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}
