// Package proc samples a server process's CPU time and resident memory
// from Linux's /proc, so a bench phase can report what it cost the server.
// A process the tool cannot see (another machine, another OS) simply has
// no numbers: Start returns an error and the phase goes without.
package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/kapi-dev/kapi/internal/bench/result"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat.
// It is 100 on every Linux architecture Go supports.
const clockTicks = 100

// DefaultInterval is how often Sampler reads the RSS for its maximum.
const DefaultInterval = 100 * time.Millisecond

// Usage is one reading of a process.
type Usage struct {
	CPUSeconds float64
	RSSBytes   int64
}

// Read reads pid's CPU time (user+system) and RSS.
func Read(pid int) (Usage, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return Usage{}, err
	}
	cpu, err := ParseStatCPU(stat)
	if err != nil {
		return Usage{}, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return Usage{}, err
	}
	rss, err := ParseStatusRSS(status)
	if err != nil {
		return Usage{}, fmt.Errorf("/proc/%d/status: %w", pid, err)
	}
	return Usage{CPUSeconds: cpu, RSSBytes: rss}, nil
}

// ParseStatCPU returns utime+stime in seconds from the contents of
// /proc/<pid>/stat. The command name (field 2) may hold spaces and
// parentheses, so fields are counted from the last ')'.
func ParseStatCPU(stat []byte) (float64, error) {
	end := bytes.LastIndexByte(stat, ')')
	if end < 0 {
		return 0, errors.New("no command name")
	}
	// After ")": state(3) ppid(4) ... utime(14) stime(15).
	fields := bytes.Fields(stat[end+1:])
	const utime, stime = 14 - 3, 15 - 3
	if len(fields) <= stime {
		return 0, fmt.Errorf("%d fields after the command name, want more than %d", len(fields), stime)
	}
	u, err := strconv.ParseInt(string(fields[utime]), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("utime: %w", err)
	}
	s, err := strconv.ParseInt(string(fields[stime]), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("stime: %w", err)
	}
	return float64(u+s) / clockTicks, nil
}

// ParseStatusRSS returns VmRSS in bytes from the contents of
// /proc/<pid>/status.
func ParseStatusRSS(status []byte) (int64, error) {
	for line := range bytes.Lines(status) {
		rest, ok := bytes.CutPrefix(line, []byte("VmRSS:"))
		if !ok {
			continue
		}
		f := bytes.Fields(rest)
		if len(f) != 2 || string(f[1]) != "kB" {
			return 0, fmt.Errorf("VmRSS line %q: want \"<n> kB\"", bytes.TrimSpace(line))
		}
		kb, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("VmRSS: %w", err)
		}
		return kb * 1024, nil
	}
	return 0, errors.New("no VmRSS line (a kernel thread or a zombie?)")
}

// Sampler measures one process over one phase: the CPU time spent between
// Start and Stop, the RSS at Stop and the highest RSS seen in between.
type Sampler struct {
	pid    int
	start  Usage
	cancel context.CancelFunc
	done   chan struct{}

	mu     sync.Mutex
	maxRSS int64
}

// Start takes the first reading of pid and samples its RSS every interval
// until Stop.
func Start(pid int, interval time.Duration) (*Sampler, error) {
	u, err := Read(pid)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Sampler{pid: pid, start: u, cancel: cancel, done: make(chan struct{}), maxRSS: u.RSSBytes}
	go s.loop(ctx, interval)
	return s, nil
}

func (s *Sampler) loop(ctx context.Context, interval time.Duration) {
	defer close(s.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if u, err := Read(s.pid); err == nil {
				s.observe(u.RSSBytes)
			}
		}
	}
}

func (s *Sampler) observe(rss int64) {
	s.mu.Lock()
	s.maxRSS = max(s.maxRSS, rss)
	s.mu.Unlock()
}

// Stop ends sampling and returns the phase's numbers, with the CPU per
// operation for ops > 0. It returns nil when the process has gone.
func (s *Sampler) Stop(ops int64) *result.Process {
	s.cancel()
	<-s.done
	end, err := Read(s.pid)
	if err != nil {
		return nil
	}
	s.observe(end.RSSBytes)
	return s.process(end, ops)
}

func (s *Sampler) process(end Usage, ops int64) *result.Process {
	p := &result.Process{
		PID:        s.pid,
		CPUSeconds: end.CPUSeconds - s.start.CPUSeconds,
		RSSBytes:   end.RSSBytes,
	}
	s.mu.Lock()
	p.MaxRSSBytes = s.maxRSS
	s.mu.Unlock()
	if ops > 0 {
		p.CPUPerOpMs = p.CPUSeconds * 1000 / float64(ops)
	}
	return p
}
