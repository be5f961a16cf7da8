package framework

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestHelmLinkFlagsStampGoModVersion: the version BuildHelm stamps into
// helm is the one go.mod pins, so a helm upgrade in go.mod cannot leave
// `helm version` naming the old release.
func TestHelmLinkFlagsStampGoModVersion(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "helm.sh/helm/v4")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -m helm.sh/helm/v4: %v", err)
	}
	want := "helm.sh/helm/v4/internal/version.version=" + strings.TrimSpace(string(out))
	if !slices.Contains(strings.Fields(helmLinkFlags), want) {
		t.Errorf("helmLinkFlags = %q, want it to set %s", helmLinkFlags, want)
	}
}
