package e2e

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/test/e2e/framework"
)

// BenchmarkStartup measures a cold `kapi serve`: from exec to the ready
// line, which kapi prints once /readyz answers 200 on its real listener,
// and the resident memory right after. Each iteration uses a fresh data
// dir, so the embedded etcd and the certificates are created from nothing.
func BenchmarkStartup(b *testing.B) {
	bins := framework.RequireBinaries(b)
	for _, backend := range backends {
		b.Run(backend, func(b *testing.B) {
			var rssKiB int64
			for b.Loop() {
				rssKiB += startOnce(b, bins.Kapi, backend)
			}
			b.ReportMetric(float64(rssKiB)/float64(b.N)/1024, "MiB-rss-ready")
		})
	}
}

// startOnce starts kapi, waits for its ready line, reads its RSS and stops
// it; only the start is timed.
func startOnce(b *testing.B, bin, backend string) int64 {
	dir := b.TempDir()
	port := framework.FreePort(b)
	cmd := exec.Command(bin, "serve", "--data-dir", dir, "--secure-port", strconv.Itoa(port), "--storage-backend", backend)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	scanner := bufio.NewScanner(stdout)
	ready := false
	for scanner.Scan() {
		if strings.HasPrefix(scanner.Text(), "kapi is ready") {
			ready = true
			break
		}
	}
	b.StopTimer()
	defer b.StartTimer()
	rss := residentKiB(cmd.Process.Pid)
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
	if !ready {
		b.Fatalf("kapi exited without a ready line")
	}
	return rss
}

// residentKiB reads VmRSS from /proc; 0 where /proc is not available.
func residentKiB(pid int) int64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			fields := strings.Fields(rest)
			if len(fields) > 0 {
				n, _ := strconv.ParseInt(fields[0], 10, 64)
				return n
			}
		}
	}
	return 0
}
