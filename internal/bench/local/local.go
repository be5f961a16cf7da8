// Package local is `make bench`: it builds kapi, starts a fresh server per
// storage backend, runs `kapi bench` and `kapi bench startup` against it
// as subprocesses (the same black box anyone else would run), and writes
// the results, a markdown table and a chart to bench/results/.
package local

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/kapi-dev/kapi/internal/bench/report"
	"github.com/kapi-dev/kapi/internal/bench/result"
	"github.com/kapi-dev/kapi/internal/bench/startup"
)

// Config is one `make bench` run.
type Config struct {
	// Binary is the kapi binary to build and measure.
	Binary string
	// Build runs `go build -o Binary ./cmd/kapi` first.
	Build    bool
	Backends []string
	// BenchArgs pass through to `kapi bench` (sizes, workloads).
	BenchArgs   []string
	StartupRuns int
	// OutDir receives <date>.json, <date>.md and <date>.svg.
	OutDir string
	// Log receives progress and the subprocesses' stderr.
	Log io.Writer
}

// Paths are the files a run writes.
type Paths struct{ JSON, Markdown, SVG string }

// ResultPaths names the files of a run on date (UTC day).
func ResultPaths(dir string, date time.Time) Paths {
	base := filepath.Join(dir, date.UTC().Format("2006-01-02"))
	return Paths{JSON: base + ".json", Markdown: base + ".md", SVG: base + ".svg"}
}

// BenchArgs is the `kapi bench` command line for one backend. The flags the
// orchestrator owns come last, so they win over the same flags in extra.
func BenchArgs(kubeconfig string, pid int, backend string, extra []string) []string {
	args := append([]string{"bench"}, extra...)
	return append(args, "--kubeconfig", kubeconfig, "--output", "json",
		"--pid", strconv.Itoa(pid), "--server", "kapi", "--backend", backend)
}

// StartupArgs is the `kapi bench startup` command line for one backend.
func StartupArgs(binary, backend string, runs int) []string {
	return []string{"bench", "startup", "--binary", binary, "--backend", backend,
		"--server", "kapi", "--runs", strconv.Itoa(runs), "--output", "json"}
}

// Run measures every backend and writes the results files.
func Run(ctx context.Context, c Config) (Paths, error) {
	if c.Log == nil {
		c.Log = io.Discard
	}
	bin, err := filepath.Abs(c.Binary)
	if err != nil {
		return Paths{}, err
	}
	if c.Build {
		fmt.Fprintf(c.Log, "building %s\n", c.Binary)
		if err := command(ctx, c.Log, "go", "build", "-o", bin, "./cmd/kapi").Run(); err != nil {
			return Paths{}, fmt.Errorf("go build: %w", err)
		}
	}
	date := time.Now().UTC()
	var phases []result.Phase
	for _, b := range c.Backends {
		ps, err := benchBackend(ctx, c, bin, b)
		if err != nil {
			return Paths{}, fmt.Errorf("backend %s: %w", b, err)
		}
		phases = append(phases, ps...)
		fmt.Fprintf(c.Log, "kapi/%s: startup, %d runs\n", b, c.StartupRuns)
		ps, err = runPhases(ctx, c.Log, bin, StartupArgs(bin, b, c.StartupRuns))
		if err != nil {
			return Paths{}, fmt.Errorf("backend %s startup: %w", b, err)
		}
		phases = append(phases, ps...)
	}
	f := &result.File{Date: date, Commit: gitCommit(ctx), Machine: ThisMachine(),
		Notes: notes(ctx, c.BenchArgs), Phases: phases}
	p := ResultPaths(c.OutDir, date)
	return p, Write(p, f)
}

// benchBackend starts a fresh kapi on backend, runs `kapi bench` against
// it and stops it, whatever happened.
func benchBackend(ctx context.Context, c Config, bin, backend string) (_ []result.Phase, err error) {
	dir, err := os.MkdirTemp("", "kapi-bench-"+backend+"-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	port, err := startup.FreePort()
	if err != nil {
		return nil, err
	}
	kubeconfig := filepath.Join(dir, "admin.kubeconfig")
	fmt.Fprintf(c.Log, "kapi/%s: starting on port %d\n", backend, port)
	s, took, err := startup.Start(ctx, startup.Launch{
		Binary:     bin,
		Args:       startup.KapiArgs(backend, dir, port),
		ReadyURL:   fmt.Sprintf("https://127.0.0.1:%d/readyz", port),
		Kubeconfig: kubeconfig,
	})
	if err != nil {
		return nil, err
	}
	defer func() {
		if stopErr := s.Stop(); stopErr != nil {
			err = errors.Join(err, stopErr)
		}
	}()
	fmt.Fprintf(c.Log, "kapi/%s: ready in %v (pid %d); running kapi bench %s\n",
		backend, took.Round(time.Millisecond), s.PID(), strings.Join(c.BenchArgs, " "))
	return runPhases(ctx, c.Log, bin, BenchArgs(kubeconfig, s.PID(), backend, c.BenchArgs))
}

// runPhases runs the binary and reads the phases it prints; its stderr
// (the progress line) goes to log.
func runPhases(ctx context.Context, log io.Writer, bin string, args []string) ([]result.Phase, error) {
	var out bytes.Buffer
	cmd := command(ctx, log, bin, args...)
	cmd.Stdout = &out
	runErr := cmd.Run()
	phases, err := result.ReadPhases(&out)
	if runErr != nil {
		return phases, fmt.Errorf("%s %s: %w", filepath.Base(bin), strings.Join(args, " "), runErr)
	}
	return phases, err
}

func command(ctx context.Context, log io.Writer, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	// Interrupt, not kill, so `kapi bench` deletes its namespace.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = time.Minute
	cmd.Stdout, cmd.Stderr = log, log
	return cmd
}

// Write writes the results file, the markdown table and the chart.
func Write(p Paths, f *result.File) error {
	if err := os.MkdirAll(filepath.Dir(p.JSON), 0o755); err != nil {
		return err
	}
	if err := result.WriteFile(p.JSON, f); err != nil {
		return err
	}
	chart := report.Build([]report.Input{{Name: filepath.Base(p.JSON), Date: f.Date, Phases: f.Phases}})
	var md bytes.Buffer
	fmt.Fprintf(&md, "# kapi bench %s\n\n%s\n\n", f.Date.Format("2006-01-02"), describe(f))
	if err := report.WriteMarkdown(&md, chart); err != nil {
		return err
	}
	if err := os.WriteFile(p.Markdown, md.Bytes(), 0o644); err != nil {
		return err
	}
	var svg bytes.Buffer
	if err := report.WriteSVG(&svg, chart, "kapi bench "+f.Date.Format("2006-01-02")+"\n"+describe(f)); err != nil {
		return err
	}
	return os.WriteFile(p.SVG, svg.Bytes(), 0o644)
}

// describe is one line on what was measured where.
func describe(f *result.File) string {
	commit := f.Commit
	if len(commit) > 12 {
		commit = commit[:12]
	}
	if commit == "" {
		commit = "unknown"
	}
	m := f.Machine
	s := fmt.Sprintf("commit %s, %d CPUs %s/%s", commit, m.CPUs, m.OS, m.Arch)
	if m.CPUModel != "" {
		s += " (" + m.CPUModel + ")"
	}
	if f.Notes != "" {
		s += "; " + f.Notes
	}
	return s
}

// ThisMachine describes the machine the bench runs on.
func ThisMachine() result.Machine {
	m := result.Machine{CPUs: runtime.NumCPU(), OS: runtime.GOOS, Arch: runtime.GOARCH, GoVersion: runtime.Version()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		m.CPUModel = CPUModel(string(b))
	}
	return m
}

// CPUModel is the first "model name" in /proc/cpuinfo.
func CPUModel(cpuinfo string) string {
	for line := range strings.Lines(cpuinfo) {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// gitCommit is the commit measured; empty outside a git checkout.
func gitCommit(ctx context.Context) string {
	out, err := exec.CommandContext(ctx, "git", "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// notes records the bench arguments and whether the tree had changes the
// commit does not hold.
func notes(ctx context.Context, benchArgs []string) string {
	var n []string
	if len(benchArgs) > 0 {
		n = append(n, "kapi bench "+strings.Join(benchArgs, " "))
	}
	// --no-optional-locks: reading the status must not write the index.
	out, err := exec.CommandContext(ctx, "git", "--no-optional-locks", "status", "--porcelain", "--untracked-files=no").Output()
	if err == nil && len(bytes.TrimSpace(out)) > 0 {
		n = append(n, "uncommitted changes on top of the commit")
	}
	return strings.Join(n, "; ")
}
