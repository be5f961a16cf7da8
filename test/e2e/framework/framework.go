// Package framework runs the built kapi binary for black-box tests and
// drives it with real clients: client-go and a kubectl built from the
// k8s.io/kubectl module.
//
// A test package builds the binaries once in TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(framework.Main(m)) }
//
// and each test starts its own server:
//
//	k := framework.StartKapi(t)
//	out, err := k.Kubectl(t, "get", "namespaces")
//
// Tests that run helm get one built from the helm.sh/helm/v4 module on
// first use:
//
//	helm := framework.RequireHelm(t)
//
// KAPI_BIN, KUBECTL_BIN and HELM_BIN point at prebuilt binaries and skip
// the build; KAPI_E2E_STORAGE_BACKEND picks the storage backend of every
// server that does not choose one.
package framework

import (
	"fmt"
	"os"
	"testing"
)

// Environment variables the framework reads.
const (
	EnvKapiBin        = "KAPI_BIN"
	EnvKubectlBin     = "KUBECTL_BIN"
	EnvHelmBin        = "HELM_BIN"
	EnvStorageBackend = "KAPI_E2E_STORAGE_BACKEND"

	// envBinDir is Main's build directory, where RequireHelm builds
	// helm when a test first needs it.
	envBinDir = "KAPI_E2E_BIN_DIR"
)

// Main builds kapi and kubectl into a temporary directory (unless the
// environment names them), publishes their paths through KAPI_BIN and
// KUBECTL_BIN for every test of the binary, runs the tests and removes the
// build, with the helm RequireHelm built there if a test asked for one.
// Its result is the exit code.
//
// The paths travel through the environment, not a package variable, so
// that the framework keeps no state of its own.
func Main(m *testing.M) int {
	dir, err := os.MkdirTemp("", "kapi-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer func() { _ = os.RemoveAll(dir) }()
	bins, err := BuildBinaries(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	if err := bins.setenv(dir); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	return m.Run()
}
