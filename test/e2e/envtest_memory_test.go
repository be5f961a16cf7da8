package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/kapi-dev/kapi/internal/bench/proc"
)

// BenchmarkEnvtestDropInMemory reports the resident sets of the drop-in
// servers an envtest starts (Linux only): at Start's return, and settled,
// 5 s later, after the servers returned the start's garbage and pages.
func BenchmarkEnvtestDropInMemory(b *testing.B) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		b.Skip("needs /proc")
	}
	assets := dropInAssets(b)
	metrics := map[string]float64{}
	for b.Loop() {
		env := &envtest.Environment{BinaryAssetsDirectory: assets}
		if _, err := env.Start(); err != nil {
			b.Fatal(err)
		}
		for _, name := range []string{"kube-apiserver", "etcd"} {
			metrics[name+"-ready-rss-MB"] += childRSSMB(b, name)
		}
		time.Sleep(5 * time.Second)
		for _, name := range []string{"kube-apiserver", "etcd"} {
			metrics[name+"-rss-MB"] += childRSSMB(b, name)
		}
		if err := env.Stop(); err != nil {
			b.Fatal(err)
		}
	}
	for unit, sum := range metrics {
		b.ReportMetric(sum/float64(b.N), unit)
	}
}

// childRSSMB is the resident set of this process's child named name.
func childRSSMB(b *testing.B, name string) float64 {
	b.Helper()
	self := strconv.Itoa(os.Getpid())
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, dir := range dirs {
		status, err := os.ReadFile(filepath.Join(dir, "status"))
		if err != nil {
			continue
		}
		fields := map[string]string{}
		for line := range strings.Lines(string(status)) {
			k, v, _ := strings.Cut(line, ":")
			fields[k] = strings.TrimSpace(v)
		}
		if fields["Name"] != name || fields["PPid"] != self {
			continue
		}
		rss, err := proc.ParseStatusRSS(status)
		if err != nil {
			b.Fatalf("%s: %v", dir, err)
		}
		return float64(rss) / (1 << 20)
	}
	b.Fatalf("no child process named %s", name)
	return 0
}
