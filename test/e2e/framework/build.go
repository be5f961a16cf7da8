package framework

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Binaries are the paths of the executables under test.
type Binaries struct {
	Kapi    string
	Kubectl string
}

// kubectlVersionFlags stamp the built kubectl with the Kubernetes version
// kapi serves, as a release kubectl would be; otherwise it reports v0.0.0
// and version-skew logic sees a client from the distant past. `kubectl
// version` reads component-base's variables, the User-Agent client-go's.
const kubectlVersionFlags = "" +
	"-X k8s.io/component-base/version.gitVersion=v1.37.2 " +
	"-X k8s.io/component-base/version.gitMajor=1 " +
	"-X k8s.io/component-base/version.gitMinor=37 " +
	"-X k8s.io/component-base/version.gitTreeState=clean " +
	"-X k8s.io/client-go/pkg/version.gitVersion=v1.37.2 " +
	"-X k8s.io/client-go/pkg/version.gitMajor=1 " +
	"-X k8s.io/client-go/pkg/version.gitMinor=37 " +
	"-X k8s.io/client-go/pkg/version.gitTreeState=clean"

// helmLinkFlags stamp the built helm with its module's version, as helm's
// release builds are (otherwise `helm version` and the User-Agent say v4.3
// whatever the patch release), and leave out the symbol table and DWARF,
// which no test reads and which add a third to the link time.
const helmLinkFlags = "-s -w -X helm.sh/helm/v4/internal/version.version=v4.3.2"

// BuildBinaries builds kapi and kubectl into dir at the same time, or
// takes them from KAPI_BIN and KUBECTL_BIN.
func BuildBinaries(dir string) (Binaries, error) {
	var (
		wg         sync.WaitGroup
		kubectl    string
		kubectlErr error
	)
	wg.Go(func() { kubectl, kubectlErr = BuildKubectl(dir) })
	kapi, kapiErr := BuildKapi(dir)
	wg.Wait()
	if err := errors.Join(kapiErr, kubectlErr); err != nil {
		return Binaries{}, err
	}
	return Binaries{Kapi: kapi, Kubectl: kubectl}, nil
}

// BuildKapi builds ./cmd/kapi into dir, or returns KAPI_BIN when set.
func BuildKapi(dir string) (string, error) {
	return build(dir, EnvKapiBin, "kapi", "./cmd/kapi")
}

// BuildKubectl builds ./test/tools/kubectl into dir, or returns KUBECTL_BIN
// when set.
func BuildKubectl(dir string) (string, error) {
	return build(dir, EnvKubectlBin, "kubectl", "./test/tools/kubectl", "-ldflags", kubectlVersionFlags)
}

// BuildHelm builds ./test/tools/helm into dir, or returns HELM_BIN when
// set.
func BuildHelm(dir string) (string, error) {
	return build(dir, EnvHelmBin, "helm", "./test/tools/helm", "-ldflags", helmLinkFlags)
}

// RequireHelm returns the helm binary, built on first use: few tests need
// it, so Main does not build it up front (a run of other tests, or of the
// benchmarks, would link it for nothing). Under Main the build
// goes into Main's directory and is published through HELM_BIN, so later
// tests of the binary reuse it; tests asking for it at the same time may
// each build one (the Go build cache shares the compiling). Without Main
// it is built into the test's temporary directory.
func RequireHelm(t testing.TB) string {
	t.Helper()
	prebuilt := os.Getenv(EnvHelmBin) != ""
	shared := os.Getenv(envBinDir)
	var dir string
	switch {
	case prebuilt:
	case shared != "":
		// A directory of its own: another test may be writing its
		// helm into Main's directory at this moment.
		var err error
		if dir, err = os.MkdirTemp(shared, "helm-"); err != nil {
			t.Fatal(err)
		}
	default:
		dir = t.TempDir()
	}
	p, err := BuildHelm(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !prebuilt && shared != "" {
		if err := os.Setenv(EnvHelmBin, p); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// RequireBinaries returns the binaries published by Main. A test run
// without Main gets them built into its own temporary directory, which
// works but repeats the link step for every test.
func RequireBinaries(t testing.TB) Binaries {
	t.Helper()
	var dir string
	if os.Getenv(EnvKapiBin) == "" || os.Getenv(EnvKubectlBin) == "" {
		dir = t.TempDir()
	}
	bins, err := BuildBinaries(dir)
	if err != nil {
		t.Fatal(err)
	}
	return bins
}

// setenv publishes the binaries, and dir for the helm RequireHelm builds
// later.
func (b Binaries) setenv(dir string) error {
	return errors.Join(os.Setenv(EnvKapiBin, b.Kapi), os.Setenv(EnvKubectlBin, b.Kubectl), os.Setenv(envBinDir, dir))
}

// build runs `go build -o dir/name [flags] pkg` in the module root, unless
// env names a binary already.
func build(dir, env, name, pkg string, flags ...string) (string, error) {
	if p := os.Getenv(env); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s: %w", env, err)
		}
		return p, nil
	}
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, name)
	args := append(append([]string{"build", "-o", out}, flags...), pkg)
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out, nil
}

// ModuleRoot returns the directory of the go.mod governing the working
// directory, as `go env GOMOD` reports it.
func ModuleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not inside a Go module: cannot find kapi's sources to build")
	}
	return filepath.Dir(gomod), nil
}
