package startup

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/internal/bench/result"
)

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func TestExpand(t *testing.T) {
	tests := []struct {
		name                    string
		c                       Config
		wantArgs                []string
		wantURL, wantKubeconfig string
	}{
		{
			name: "kapi defaults",
			c:    Config{Backend: "etcd3"},
			wantArgs: []string{"serve", "--storage-backend", "etcd3", "--data-dir", "/d",
				"--bind-address", "127.0.0.1", "--secure-port", "7000"},
			wantURL: "https://127.0.0.1:7000/readyz", wantKubeconfig: "/d/admin.kubeconfig",
		},
		{
			name:     "other server with placeholders",
			c:        Config{Args: []string{"--secure-port={port}", "--cert-dir", "{dir}/pki"}, ReadyURL: "https://localhost:{port}/readyz"},
			wantArgs: []string{"--secure-port=7000", "--cert-dir", "/d/pki"},
			wantURL:  "https://localhost:7000/readyz",
		},
		{
			name:     "other server, default URL",
			c:        Config{Args: []string{"x"}, Kubeconfig: "{dir}/kc"},
			wantArgs: []string{"x"},
			wantURL:  "https://127.0.0.1:7000/readyz", wantKubeconfig: "/d/kc",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args, url, kc := expand(tt.c, "/d", 7000)
			if d := cmp.Diff(tt.wantArgs, args); d != "" {
				t.Errorf("args (-want +got):\n%s", d)
			}
			if url != tt.wantURL || kc != tt.wantKubeconfig {
				t.Errorf("url, kubeconfig = %q, %q; want %q, %q", url, kc, tt.wantURL, tt.wantKubeconfig)
			}
		})
	}
}

func TestPhaseSummary(t *testing.T) {
	runs := []run{
		{ready: 300 * time.Millisecond, rss: 30 << 20, cpu: 0.3, pid: 1},
		{ready: 100 * time.Millisecond, rss: 10 << 20, cpu: 0.1, pid: 2},
		{ready: 200 * time.Millisecond, rss: 20 << 20, cpu: 0.2, pid: 3},
	}
	p := phase(Config{Server: "kapi", Backend: "memory", Runs: 3, Binary: "/x/kapi"}, time.Unix(0, 0), runs)
	want := map[string]float64{"readyMsMedian": 200, "readyMsMin": 100, "readyMsMax": 300, "rssBytesMedian": 20 << 20, "cpuMsMedian": 200}
	if d := cmp.Diff(want, p.Extra); d != "" {
		t.Errorf("extra (-want +got):\n%s", d)
	}
	if p.Seconds != 0.2 || p.Ops != 3 || p.Latency.P50 != 200 || p.Latency.Count != 3 {
		t.Errorf("seconds %v ops %d latency %+v", p.Seconds, p.Ops, p.Latency)
	}
	wantProc := &result.Process{PID: 3, CPUSeconds: 0.2, RSSBytes: 20 << 20, MaxRSSBytes: 30 << 20}
	if d := cmp.Diff(wantProc, p.ServerProcess); d != "" {
		t.Errorf("server process (-want +got):\n%s", d)
	}
}
