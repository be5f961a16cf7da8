// Package internal_test holds repository-wide checks: every package has a
// doc comment, and the kapi binary does not import the servers we write.
package internal_test

import (
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// moduleRoot is the repository root, one level above internal/.
func moduleRoot(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(wd)
}

// TestPackagesHaveDocComments fails for any package directory whose non-test
// files carry no package doc comment.
func TestPackagesHaveDocComments(t *testing.T) {
	root := moduleRoot(t)
	dirs := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "kapi-data") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			dirs[filepath.Dir(path)] = dirs[filepath.Dir(path)] || false
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for dir := range dirs {
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, parser.ParseComments|parser.PackageClauseOnly)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		for name, pkg := range pkgs {
			documented := false
			for _, f := range pkg.Files {
				if f.Doc != nil && strings.TrimSpace(f.Doc.Text()) != "" {
					documented = true
				}
			}
			if !documented {
				rel, _ := filepath.Rel(root, dir)
				t.Errorf("package %s in %s has no package doc comment", name, rel)
			}
		}
	}
}

// TestBinaryDoesNotImportForbiddenModules keeps the rule of DESIGN.md: we
// write the API server, we do not import it; and helm is for the e2e tests
// only.
func TestBinaryDoesNotImportForbiddenModules(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	cmd := exec.Command("go", "list", "-deps", "./cmd/kapi")
	cmd.Dir = moduleRoot(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if forbiddenImport(pkg) {
			t.Errorf("cmd/kapi depends on %s, which kapi must implement itself", pkg)
		}
	}
}

// forbiddenModules are the servers kapi writes, and helm, which go.mod
// holds only for the e2e tests. Of the two servers whose API types kapi
// serves, the type packages and generated clients (allowedTrees) are API
// definitions like k8s.io/api and may be imported; nothing else.
var (
	forbiddenModules = []string{"k8s.io/apiserver", "k8s.io/kubernetes", "k8s.io/apiextensions-apiserver", "k8s.io/kube-aggregator", "k8s.io/controller-manager", "helm.sh/helm"}
	allowedTrees     = []string{
		"k8s.io/apiextensions-apiserver/pkg/apis", "k8s.io/apiextensions-apiserver/pkg/client",
		"k8s.io/kube-aggregator/pkg/apis", "k8s.io/kube-aggregator/pkg/client",
	}
)

// within is pkg the package root or one under it.
func within(pkg, root string) bool { return pkg == root || strings.HasPrefix(pkg, root+"/") }

// forbiddenImport is whether kapi may not import pkg.
func forbiddenImport(pkg string) bool {
	for _, a := range allowedTrees {
		if within(pkg, a) {
			return false
		}
	}
	for _, f := range forbiddenModules {
		if within(pkg, f) {
			return true
		}
	}
	return false
}

func TestForbiddenImport(t *testing.T) {
	tests := []struct {
		pkg  string
		want bool
	}{
		{"k8s.io/api/core/v1", false},
		{"k8s.io/apimachinery/pkg/runtime", false},
		{"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1", false},
		{"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions", false},
		{"k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset", false},
		{"k8s.io/apiextensions-apiserver/pkg/client/informers/externalversions", false},
		{"k8s.io/kube-aggregator/pkg/apis/apiregistration/v1", false},
		{"k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset", false},
		{"k8s.io/apiextensions-apiserver", true},
		{"k8s.io/apiextensions-apiserver/pkg/apiserver", true},
		{"k8s.io/apiextensions-apiserver/pkg/apiserver/schema", true},
		{"k8s.io/apiextensions-apiserver/pkg/apihelpers", true},
		{"k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition", true},
		{"k8s.io/apiextensions-apiserver/pkg/controller/establish", true},
		{"k8s.io/apiextensions-apiserver/pkg/apisx", true},
		{"k8s.io/kube-aggregator/pkg/apiserver", true},
		{"k8s.io/kube-aggregator/pkg/controllers/status", true},
		{"k8s.io/apiserver/pkg/endpoints", true},
		{"k8s.io/apiserver", true},
		{"k8s.io/apiserverx", false},
		{"k8s.io/kubernetes/pkg/apis/core", true},
		{"k8s.io/controller-manager/app", true},
		{"helm.sh/helm/v4/pkg/kube", true},
		{"helm.sh/helm/v4", true},
	}
	for _, tt := range tests {
		if got := forbiddenImport(tt.pkg); got != tt.want {
			t.Errorf("forbiddenImport(%q) = %v, want %v", tt.pkg, got, tt.want)
		}
	}
}
