package controlplane

import (
	"bufio"
	"context"
	"io"
	"net"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkStartupControllers measures Run until /readyz answers 200 on
// the memory backend, without any in-process controller and with all of
// them: the difference is the start-up the controllers add. cpu-ms/op is
// the process's CPU time until ready, steadier than wall time on a busy
// machine.
func BenchmarkStartupControllers(b *testing.B) {
	for _, bc := range []struct {
		name        string
		controllers []string
	}{{"none", []string{}}, {"all", nil}} {
		b.Run(bc.name, func(b *testing.B) {
			var cpu time.Duration
			for b.Loop() {
				cpu += startAndStop(b, bc.controllers)
			}
			b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}

func startAndStop(b *testing.B, controllers []string) time.Duration {
	cpu0 := processCPU()
	dir := b.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	cfg := &Config{
		Out: pw, DataDir: dir, CertDir: filepath.Join(dir, "pki"),
		BindAddress: net.ParseIP("127.0.0.1"), StorageBackend: "memory", EtcdPrefix: "/registry",
		WatchCacheSize: 1000, RequestTimeout: time.Minute, MinRequestTimeout: 30 * time.Minute,
		MaxRequestBytes: 3 << 20, Controllers: controllers,
	}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, cfg); pw.Close() }()
	scanner := bufio.NewScanner(pr)
	for scanner.Scan() {
		if strings.HasPrefix(scanner.Text(), "kapi is ready") {
			break
		}
	}
	b.StopTimer()
	cpu := processCPU() - cpu0
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	cancel()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	b.StartTimer()
	return cpu
}

// processCPU is the user and system time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
