package etcdcluster

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// readyLine is what the etcd command prints on stdout once it serves.
const readyLine = "ready"

// member is one etcd member of a cluster: fixed name, directories and
// ports, and the process currently running it, if any.
type member struct {
	index     int
	name      string
	dataDir   string
	logPath   string
	clientURL string
	peerURL   string
	proc      *process // nil while stopped; guarded by Cluster.mu
}

// process is one run of the etcd command.
type process struct {
	cmd    *exec.Cmd
	ready  <-chan struct{} // closed when the member prints readyLine
	exited chan struct{}   // closed once the process has exited
	err    error           // the exit status; read after exited is closed
}

// start runs the command with args, appending its stdout and stderr to
// m.logPath.
func (m *member) start(bin string, args []string) (*process, error) {
	log, err := os.OpenFile(m.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "=== %s: %s %s\n", time.Now().Format(time.RFC3339Nano), bin, strings.Join(args, " "))
	ready := &lineWatcher{line: readyLine, seen: make(chan struct{})}
	cmd := exec.Command(bin, args...)
	cmd.Stdout = io.MultiWriter(log, ready)
	cmd.Stderr = log
	setProcAttr(cmd)
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, err
	}
	p := &process{cmd: cmd, ready: ready.seen, exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		log.Close()
		close(p.exited)
	}()
	return p, nil
}

// waitReady waits until p prints the ready line, exits, or deadline passes.
func (p *process) waitReady(deadline time.Time) error {
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case <-p.ready:
		return nil
	case <-p.exited:
		return fmt.Errorf("exited before serving: %v", p.err)
	case <-timer.C:
		return errors.New("not ready before the deadline")
	}
}

// kill sends SIGKILL and waits for the process to exit.
func (p *process) kill() {
	_ = p.cmd.Process.Kill() // fails only if it already exited
	<-p.exited
}

// stop sends SIGTERM and waits up to grace for a clean exit, then kills.
// It returns the exit error of a process that did not exit cleanly.
func (p *process) stop(grace time.Duration) error {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-p.exited:
		return p.err
	case <-timer.C:
		p.kill()
		return fmt.Errorf("still running %v after SIGTERM; killed", grace)
	}
}

// lineWatcher is an io.Writer that closes seen once a whole line equal to
// line has been written.
type lineWatcher struct {
	line string
	seen chan struct{}

	mu      sync.Mutex
	partial []byte
	done    bool
}

func (w *lineWatcher) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return len(b), nil
	}
	w.partial = append(w.partial, b...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			return len(b), nil
		}
		if strings.TrimSpace(string(w.partial[:i])) == w.line {
			w.done, w.partial = true, nil
			close(w.seen)
			return len(b), nil
		}
		w.partial = w.partial[i+1:]
	}
}

// logTail returns the last n lines of the file at path, for failure
// messages.
func logTail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", path, err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
