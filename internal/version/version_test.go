package version

import (
	"runtime"
	"strconv"
	"strings"
	"testing"

	utilversion "k8s.io/apimachinery/pkg/util/version"
)

func TestGet(t *testing.T) {
	info := Get()
	v, err := utilversion.ParseSemantic(info.GitVersion)
	if err != nil {
		t.Fatalf("GitVersion %q is not semantic: %v", info.GitVersion, err)
	}
	tests := []struct {
		field, got, want string
	}{
		{"Major", info.Major, strconv.Itoa(int(v.Major()))},
		{"Minor", info.Minor, strconv.Itoa(int(v.Minor()))},
		{"Major", info.Major, "1"},
		{"Minor", info.Minor, "37"},
		{"EmulationMinor", info.EmulationMinor, "37"},
		{"MinCompatibilityMinor", info.MinCompatibilityMinor, "36"},
		{"GoVersion", info.GoVersion, runtime.Version()},
		{"Compiler", info.Compiler, runtime.Compiler},
		{"Platform", info.Platform, runtime.GOOS + "/" + runtime.GOARCH},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %q, want %q", tt.field, tt.got, tt.want)
		}
	}
	if !strings.HasSuffix(info.GitVersion, "-kapi") {
		t.Errorf("GitVersion = %q, want a -kapi suffix", info.GitVersion)
	}
	if info.String() != info.GitVersion {
		t.Errorf("String() = %q, want %q", info.String(), info.GitVersion)
	}
}
