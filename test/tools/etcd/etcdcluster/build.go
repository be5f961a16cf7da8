package etcdcluster

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// toolPackage is the etcd command this package runs.
const toolPackage = "github.com/kapi-dev/kapi/test/tools/etcd"

// built holds the result of building the command once per test process.
var built struct {
	once sync.Once
	path string
	err  error
}

// binary returns the path of the etcd command, building it on first use.
func binary() (string, error) {
	built.once.Do(func() { built.path, built.err = build() })
	return built.path, built.err
}

// build compiles the command into a directory kept per checkout (under the
// user's cache directory, or the temp directory without one), so repeated
// test runs reuse one file instead of leaving a binary behind each time. The
// command is built into a temporary name and renamed into place: a test
// process running concurrently keeps executing the file it started, and
// never sees a half-written one.
func build() (string, error) {
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(string(gomod))))
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "kapi-etcdcluster", hex.EncodeToString(sum[:6]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, "etcd-*.tmp")
	if err != nil {
		return "", err
	}
	tmp.Close()
	defer os.Remove(tmp.Name()) // gone after the rename; cleans up a failed build
	out, err := exec.Command("go", "build", "-o", tmp.Name(), toolPackage).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build %s: %w\n%s", toolPackage, err, out)
	}
	path := filepath.Join(dir, "etcd")
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", err
	}
	return path, nil
}
