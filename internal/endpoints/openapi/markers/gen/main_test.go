package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestGeneratedUpToDate regenerates the table from the module sources and
// compares it with the committed file, so a k8s.io/api bump or a
// generator change without `go generate` fails here.
func TestGeneratedUpToDate(t *testing.T) {
	mods, err := findModules(sourceModules...)
	if err != nil {
		t.Skipf("module sources not found: %v", err)
	}
	for _, m := range mods {
		if _, err := os.Stat(m.Dir); err != nil {
			t.Skipf("module sources not found: %v", err)
		}
	}
	out := filepath.Join(t.TempDir(), "zz_generated.markers.go")
	if err := run(out); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("..", "zz_generated.markers.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("zz_generated.markers.go is stale (%d bytes, regenerated %d): run go generate ./internal/endpoints/openapi/markers", len(want), len(got))
	}
}

func TestFindModules(t *testing.T) {
	if _, err := findModules("example.com/not/in/the/build/list"); err == nil {
		t.Error("findModules of a module outside the build list: want an error")
	}
}
