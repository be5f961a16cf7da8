// Package startup measures how fast an API server binary becomes ready:
// the time from exec to the first 200 from /readyz, and its resident
// memory at that moment, over several runs. It also starts and stops the
// servers `make bench` measures, so both use one launcher.
package startup

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Server is a launched server process.
type Server struct {
	cmd  *exec.Cmd
	out  *tailBuffer
	done chan struct{}
	err  error // the exit error, set before done closes
}

// Launch is how to start a server and tell that it is ready.
type Launch struct {
	Binary string
	Args   []string
	// ReadyURL is polled until it answers 200.
	ReadyURL string
	// Kubeconfig, when set, supplies the client credentials for ReadyURL
	// (kapi's admin kubeconfig, written during startup). Until the file
	// exists the poll goes without credentials.
	Kubeconfig string
	// Poll is the interval between readiness probes (default 5ms).
	Poll time.Duration
	// Timeout bounds the wait for ready (default 2m).
	Timeout time.Duration
	// Output, when set, receives the server's stdout and stderr too.
	Output io.Writer
}

// Start execs the server and waits until it is ready. It returns the time
// from exec to the first 200. On error the process is already stopped.
func Start(ctx context.Context, l Launch) (*Server, time.Duration, error) {
	if l.Poll <= 0 {
		l.Poll = 5 * time.Millisecond
	}
	if l.Timeout <= 0 {
		l.Timeout = 2 * time.Minute
	}
	s := &Server{out: &tailBuffer{max: 4096}, done: make(chan struct{})}
	s.cmd = exec.Command(l.Binary, l.Args...)
	var w io.Writer = s.out
	if l.Output != nil {
		w = io.MultiWriter(s.out, l.Output)
	}
	s.cmd.Stdout, s.cmd.Stderr = w, w
	setPdeathsig(s.cmd)
	probe := newProber(l.ReadyURL, l.Kubeconfig)
	defer probe.close()

	start := time.Now()
	if err := s.cmd.Start(); err != nil {
		return nil, 0, fmt.Errorf("starting %s: %w", l.Binary, err)
	}
	go func() {
		s.err = s.cmd.Wait()
		close(s.done)
	}()
	took, err := s.waitReady(ctx, probe, start, l)
	if err != nil {
		_ = s.Stop()
		return nil, 0, err
	}
	return s, took, nil
}

func (s *Server) waitReady(ctx context.Context, p *prober, start time.Time, l Launch) (time.Duration, error) {
	deadline := time.NewTimer(l.Timeout)
	defer deadline.Stop()
	tick := time.NewTicker(l.Poll)
	defer tick.Stop()
	for {
		err := p.ready(ctx)
		if err == nil {
			return time.Since(start), nil
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-s.done:
			return 0, fmt.Errorf("%s exited before it was ready (%v); its last output:\n%s", l.Binary, s.err, s.out.String())
		case <-deadline.C:
			return 0, fmt.Errorf("%s not ready after %v: %w", l.ReadyURL, l.Timeout, err)
		case <-tick.C:
		}
	}
}

// PID is the server's process id.
func (s *Server) PID() int { return s.cmd.Process.Pid }

// Output is the tail of what the server printed.
func (s *Server) Output() string { return s.out.String() }

// Stop sends SIGTERM and waits for the process to exit, killing it when it
// takes longer than 30 seconds. A server that exits on SIGTERM with a
// non-zero status is not an error here: the measurement is over.
func (s *Server) Stop() error {
	select {
	case <-s.done:
		return nil
	default:
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	select {
	case <-s.done:
		return nil
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
		return fmt.Errorf("%s did not exit within 30s of SIGTERM; killed", s.cmd.Path)
	}
}

// prober asks the readiness URL, with the kubeconfig's credentials once
// the server has written it.
type prober struct {
	url, kubeconfig string
	client          *http.Client
	withCreds       bool
}

func newProber(url, kubeconfig string) *prober {
	// Skipping verification is fine: the probe only times readiness and
	// sends no secret until the kubeconfig (with its CA) is loaded.
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, DisableKeepAlives: true}
	return &prober{url: url, kubeconfig: kubeconfig, client: &http.Client{Transport: tr, Timeout: 5 * time.Second}}
}

func (p *prober) ready(ctx context.Context) error {
	if p.kubeconfig != "" && !p.withCreds {
		if err := p.loadCreds(); err != nil {
			return err
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.url, nil)
	if err != nil {
		return err
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", p.url, resp.Status)
	}
	return nil
}

// loadCreds switches to the kubeconfig's client once the file is there.
// Before that the probe is only waiting for the file: it is written
// before the server serves, so no answer could be 200 yet.
func (p *prober) loadCreds() error {
	if _, err := os.Stat(p.kubeconfig); err != nil {
		return fmt.Errorf("waiting for %s: %w", p.kubeconfig, err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", p.kubeconfig)
	if err != nil {
		return err
	}
	c, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return err
	}
	c.Timeout = 5 * time.Second
	p.client.CloseIdleConnections()
	p.client, p.withCreds = c, true
	return nil
}

func (p *prober) close() { p.client.CloseIdleConnections() }

// tailBuffer keeps the last max bytes written, for error messages.
type tailBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	if over := b.buf.Len() - b.max; over > 0 {
		b.buf.Next(over)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
