// Package version reports which Kubernetes version kapi presents itself as,
// and how the binary was built, for /version and `kapi version`.
//
// kapi serves the API of k8s.io/api v0.37.2, so it reports Kubernetes 1.37:
// kubectl and client libraries compare this version to decide which
// features and skew warnings apply.
//
// Build details are set with the linker:
//
//	go build -ldflags "\
//	  -X github.com/kapi-dev/kapi/internal/version.gitCommit=$(git rev-parse HEAD) \
//	  -X github.com/kapi-dev/kapi/internal/version.gitTreeState=clean \
//	  -X github.com/kapi-dev/kapi/internal/version.buildDate=$(date -u +%Y-%m-%dT%H:%M:%SZ)" ./cmd/kapi
//
// gitVersion may be overridden the same way. Without ldflags, the commit and
// date come from the VCS stamp Go embeds, when the build had one.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"

	apiversion "k8s.io/apimachinery/pkg/version"
)

// The Kubernetes release whose API kapi serves.
const (
	major = "1"
	minor = "37"
	// minCompatibilityMinor is the oldest minor whose clients and stored
	// data this release still accepts, as upstream reports it (n-1).
	minCompatibilityMinor = "36"
)

// Set by -ldflags -X; these are the only package variables, because the
// linker can only write to variables. Nothing in kapi assigns them.
var (
	gitVersion   = "v1.37.2-kapi"
	gitCommit    = ""
	gitTreeState = ""
	buildDate    = "1970-01-01T00:00:00Z"
)

// Get returns the version kapi reports.
func Get() apiversion.Info {
	commit, treeState, date := gitCommit, gitTreeState, buildDate
	if commit == "" {
		commit, treeState, date = fromBuildInfo(date)
	}
	return apiversion.Info{
		Major:                 major,
		Minor:                 minor,
		EmulationMajor:        major,
		EmulationMinor:        minor,
		MinCompatibilityMajor: major,
		MinCompatibilityMinor: minCompatibilityMinor,
		GitVersion:            gitVersion,
		GitCommit:             commit,
		GitTreeState:          treeState,
		BuildDate:             date,
		GoVersion:             runtime.Version(),
		Compiler:              runtime.Compiler,
		Platform:              fmt.Sprintf("%s/%s", runtime.GOOS, runtime.GOARCH),
	}
}

// fromBuildInfo reads the VCS stamp of `go build` (absent under -buildvcs=false
// and in tests), keeping date when the stamp has none.
func fromBuildInfo(date string) (commit, treeState, buildDate string) {
	buildDate = date
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "", "", buildDate
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value
		case "vcs.time":
			buildDate = s.Value
		case "vcs.modified":
			treeState = "clean"
			if s.Value == "true" {
				treeState = "dirty"
			}
		}
	}
	return commit, treeState, buildDate
}
