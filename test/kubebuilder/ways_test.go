package kubebuilder

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/kapi-dev/kapi/kapitest"
	"github.com/kapi-dev/kapi/test/e2e/framework"
)

// crdDir is where a kubebuilder project keeps config/crd/bases.
var crdDir = filepath.Join("testdata", "crd")

func TestMain(m *testing.M) {
	// controller-runtime warns when its global logger is never set.
	logf.SetLogger(logr.Discard())
	os.Exit(m.Run())
}

// TestEnvtestAssets: an unmodified envtest, with KUBEBUILDER_ASSETS laid
// out by `kapi envtest-assets`; envtest passes its own upstream-shaped
// kube-apiserver and etcd flags.
func TestEnvtestAssets(t *testing.T) {
	kapi, err := framework.BuildKapi(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	assets := filepath.Join(t.TempDir(), "assets")
	if out, err := exec.Command(kapi, "envtest-assets", assets).CombinedOutput(); err != nil {
		t.Fatalf("kapi envtest-assets: %v\n%s", err, out)
	}
	t.Setenv("KUBEBUILDER_ASSETS", assets)
	env := &envtest.Environment{CRDDirectoryPaths: []string{crdDir}, ErrorIfCRDPathMissing: true}
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("envtest Start: %v", err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("envtest Stop: %v", err)
		}
	})
	runSuite(t, cfg)
}

// TestKapitestAsExistingCluster: kapi in-process on memory, handed to
// envtest as an existing cluster, so that envtest's CRDInstallOptions
// stay as they were. This is the recipe of kapitest's package doc.
func TestKapitestAsExistingCluster(t *testing.T) {
	env := &envtest.Environment{
		Config:                kapitest.Start(t),
		UseExistingCluster:    ptr.To(true),
		CRDDirectoryPaths:     []string{crdDir},
		ErrorIfCRDPathMissing: true,
	}
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("envtest Start: %v", err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("envtest Stop: %v", err)
		}
	})
	runSuite(t, cfg)
}

// TestKapitestEtcd: kapitest alone, on embedded etcd, installing the CRDs
// itself.
func TestKapitestEtcd(t *testing.T) {
	runSuite(t, kapitest.Start(t, kapitest.WithEtcd(), kapitest.WithCRDPaths(crdDir)))
}
