package startup

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"
)

// envFakeServer makes the test binary act as a tiny API server: it listens
// on -port, answers /readyz 503 until -delay has passed and 200 after, and
// exits 0 on SIGTERM, so startup is tested without building kapi.
const envFakeServer = "KAPI_BENCH_FAKE_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(envFakeServer) == "1" {
		os.Exit(fakeServer(os.Args[1:]))
	}
	os.Exit(m.Run())
}

func fakeServer(args []string) int {
	fs := flag.NewFlagSet("fake", flag.ContinueOnError)
	port := fs.String("port", "", "")
	delay := fs.Duration("delay", 0, "")
	fail := fs.Bool("fail", false, "exit before serving")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *fail {
		fmt.Println("failing as asked")
		return 3
	}
	start := time.Now()
	mux := http.NewServeMux()
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, r *http.Request) {
		if time.Since(start) < *delay {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok"))
	})
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", *port))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM)
	go func() { _ = http.Serve(ln, mux) }()
	<-sig
	fmt.Println("got SIGTERM")
	return 0
}

// fakeConfig runs the fake server through Config's placeholders.
func fakeConfig(t *testing.T, args ...string) Config {
	t.Helper()
	t.Setenv(envFakeServer, "1")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Config{
		Binary:   self,
		Args:     append([]string{"-port", PortPlaceholder}, args...),
		ReadyURL: "http://127.0.0.1:" + PortPlaceholder + "/readyz",
		Server:   "fake", Backend: "none", Runs: 3, Timeout: 30 * time.Second,
	}
}

func TestRunFakeServer(t *testing.T) {
	c := fakeConfig(t, "-delay", "30ms")
	p, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if p.Phase != "startup" || p.Workload != "startup" || p.Ops != 3 || p.Server != "fake" || p.Backend != "none" {
		t.Errorf("phase header: %+v", p)
	}
	for _, k := range []string{"readyMsMedian", "readyMsMin", "readyMsMax", "rssBytesMedian"} {
		if _, ok := p.Extra[k]; !ok {
			t.Errorf("Extra has no %q: %v", k, p.Extra)
		}
	}
	e := p.Extra
	// The fake answers 503 for its first 30ms, so a run that saw 200
	// sooner did not wait for the real answer.
	if e["readyMsMin"] < 30 || e["readyMsMin"] > e["readyMsMedian"] || e["readyMsMedian"] > e["readyMsMax"] {
		t.Errorf("ready times out of order or too early: %v", e)
	}
	if p.Latency == nil || p.Latency.Count != 3 || p.Latency.P50 != e["readyMsMedian"] || p.Latency.Max != e["readyMsMax"] {
		t.Errorf("latency %+v does not match extra %v", p.Latency, e)
	}
	if _, err := os.Stat("/proc/self/status"); err == nil && (e["rssBytesMedian"] <= 0 || p.ServerProcess == nil) {
		t.Errorf("no RSS on a system with /proc: %v %+v", e, p.ServerProcess)
	}
}

func TestRunErrors(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		change func(*Config)
		want   string
	}{
		{name: "exits early", args: []string{"-fail"}, want: "failing as asked"},
		{name: "never ready", args: []string{"-delay", "1h"}, change: func(c *Config) { c.Timeout = 200 * time.Millisecond }, want: "not ready after"},
		{name: "no binary", change: func(c *Config) { c.Binary = "" }, want: "--binary is required"},
		{name: "missing binary", change: func(c *Config) { c.Binary = "/nonexistent/kapi" }, want: "starting /nonexistent/kapi"},
		{name: "zero runs", change: func(c *Config) { c.Runs = 0 }, want: "--runs 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := fakeConfig(t, tt.args...)
			c.Runs = 1
			if tt.change != nil {
				tt.change(&c)
			}
			_, err := Run(context.Background(), c)
			if err == nil || !contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestStopSendsSIGTERM(t *testing.T) {
	c := fakeConfig(t)
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	args, url, _ := expand(c, t.TempDir(), port)
	s, _, err := Start(context.Background(), Launch{Binary: c.Binary, Args: args, ReadyURL: url})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if got := s.Output(); !contains(got, "got SIGTERM") {
		t.Errorf("server output %q: it was not stopped with SIGTERM", got)
	}
	if err := s.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
}
