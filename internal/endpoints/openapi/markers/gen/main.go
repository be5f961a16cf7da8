// Command gen writes the markers table of package markers: it parses the
// Go API types of k8s.io/api, k8s.io/apimachinery and the served
// apiextensions.k8s.io types of k8s.io/apiextensions-apiserver, as found
// in the module cache, and records the +listType, +listMapKey, +mapType,
// +structType, +optional, +required and +default markers (and their
// +k8s: spellings) of every type and field that has any.
//
// Run it from the markers package with go generate.
package main

import (
	"flag"
	"fmt"
	"os"
)

// sourceModules are the modules whose API types the table covers.
var sourceModules = []string{"k8s.io/api", "k8s.io/apimachinery", "k8s.io/apiextensions-apiserver"}

func main() {
	out := flag.String("o", "zz_generated.markers.go", "file to write the table to")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// run generates the table and writes it to out.
func run(out string) error {
	mods, err := findModules(sourceModules...)
	if err != nil {
		return err
	}
	src, err := generate(mods[0], mods[1], mods[2])
	if err != nil {
		return err
	}
	return os.WriteFile(out, src, 0o644)
}

// generate returns the Go source of the table for the given k8s.io/api,
// k8s.io/apimachinery and k8s.io/apiextensions-apiserver modules.
func generate(api, machinery, extensions module) ([]byte, error) {
	pkgs, err := apiPackages(api, machinery)
	if err != nil {
		return nil, err
	}
	pkgs = append(pkgs, moduleSubPackages(extensions, extensionsPackages)...)
	table, err := collect(pkgs)
	if err != nil {
		return nil, err
	}
	return render(table, []module{api, machinery, extensions})
}

// collect merges the markers of every package into one table.
func collect(pkgs []sourcePackage) (map[string]typeMarkers, error) {
	table := map[string]typeMarkers{}
	for _, pkg := range pkgs {
		types, err := parsePackage(pkg)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", pkg.ImportPath, err)
		}
		for name, t := range types {
			table[name] = t
		}
	}
	return table, nil
}
