package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// module is one module of the build list, as `go list -m` reports it.
type module struct {
	Path, Version, Dir string
}

// sourcePackage is one package to read markers from.
type sourcePackage struct {
	ImportPath, Dir string
}

// findModules asks the go command for the source directories of modules
// in the build list of the module around the working directory. It reads
// the module cache only, so it works offline once the modules are there.
func findModules(paths ...string) ([]module, error) {
	args := append([]string{"list", "-m", "-f", "{{.Path}}\t{{.Version}}\t{{.Dir}}"}, paths...)
	cmd := exec.Command("go", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -m %s: %w: %s", strings.Join(paths, " "), err, strings.TrimSpace(stderr.String()))
	}
	byPath := map[string]module{}
	for line := range strings.Lines(string(out)) {
		parts := strings.SplitN(strings.TrimRight(line, "\n"), "\t", 3)
		if len(parts) != 3 || parts[2] == "" {
			return nil, fmt.Errorf("go list -m: no source directory in %q (is the module downloaded?)", line)
		}
		byPath[parts[0]] = module{Path: parts[0], Version: parts[1], Dir: parts[2]}
	}
	// Answer in the order asked, whatever order go list prints in.
	mods := make([]module, len(paths))
	for i, p := range paths {
		m, ok := byPath[p]
		if !ok {
			return nil, fmt.Errorf("go list -m: no module %s", p)
		}
		mods[i] = m
	}
	return mods, nil
}

// machineryPackages are the apimachinery packages whose types appear in
// API objects: ObjectMeta and friends, Quantity, IntOrString,
// RawExtension and Unknown, and the version Info.
var machineryPackages = []string{
	"pkg/apis/meta/v1",
	"pkg/api/resource",
	"pkg/util/intstr",
	"pkg/runtime",
	"pkg/version",
}

// extensionsPackages are the k8s.io/apiextensions-apiserver API packages
// whose types kapi serves (CustomResourceDefinitions).
var extensionsPackages = []string{"pkg/apis/apiextensions/v1"}

// moduleSubPackages lists the given packages of mod.
func moduleSubPackages(mod module, rels []string) []sourcePackage {
	pkgs := make([]sourcePackage, 0, len(rels))
	for _, p := range rels {
		pkgs = append(pkgs, sourcePackage{
			ImportPath: path.Join(mod.Path, p),
			Dir:        filepath.Join(mod.Dir, filepath.FromSlash(p)),
		})
	}
	return pkgs
}

// versionDir matches the version directories of k8s.io/api (v1,
// v1beta2, v1alpha3, ...).
var versionDir = regexp.MustCompile(`^v[0-9]+((alpha|beta)[0-9]+)?$`)

// apiPackages lists every k8s.io/api/<group>/<version> package and the
// apimachinery packages above, in a stable order.
func apiPackages(api, machinery module) ([]sourcePackage, error) {
	groups, err := os.ReadDir(api.Dir)
	if err != nil {
		return nil, err
	}
	var pkgs []sourcePackage
	for _, g := range groups {
		if !g.IsDir() {
			continue
		}
		versions, err := os.ReadDir(filepath.Join(api.Dir, g.Name()))
		if err != nil {
			return nil, err
		}
		for _, v := range versions {
			if v.IsDir() && versionDir.MatchString(v.Name()) {
				pkgs = append(pkgs, sourcePackage{
					ImportPath: path.Join(api.Path, g.Name(), v.Name()),
					Dir:        filepath.Join(api.Dir, g.Name(), v.Name()),
				})
			}
		}
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("no group/version packages under %s", api.Dir)
	}
	return append(pkgs, moduleSubPackages(machinery, machineryPackages)...), nil
}
