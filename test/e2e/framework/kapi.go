package framework

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Limits of starting and stopping a server.
const (
	readyTimeout  = 60 * time.Second
	pollInterval  = 100 * time.Millisecond
	stopTimeout   = 20 * time.Second
	startAttempts = 3
)

// KubeconfigName is the admin kubeconfig `kapi serve` writes in its data dir.
const KubeconfigName = "admin.kubeconfig"

// Kapi is one running `kapi serve` process.
type Kapi struct {
	bins       Binaries
	config     startConfig
	port       int
	dataDir    string
	kubeconfig string
	url        string
	cacheDir   string
	out        *syncBuffer

	// restConfig is the admin config read when the server became ready;
	// nil until then.
	restConfig *rest.Config

	cmd      *exec.Cmd
	done     chan struct{} // closed when the process has exited
	waitErr  error         // set before done is closed
	stopOnce sync.Once
	stopErr  error
	killed   bool // by Kill, on purpose
}

// Option configures StartKapi.
type Option func(*startConfig)

type startConfig struct {
	dataDir        string
	storageBackend string
	args           []string
}

// WithDataDir runs kapi on dir, such as the DataDir of a server stopped
// earlier, to test a restart.
func WithDataDir(dir string) Option { return func(c *startConfig) { c.dataDir = dir } }

// WithStorageBackend passes --storage-backend (etcd3 or memory).
func WithStorageBackend(b string) Option { return func(c *startConfig) { c.storageBackend = b } }

// WithArgs appends arguments to `kapi serve`.
func WithArgs(args ...string) Option {
	return func(c *startConfig) { c.args = append(c.args, args...) }
}

// StartKapi starts `kapi serve` on a free loopback port and returns once
// /readyz answers 200 to the admin kubeconfig. The server is stopped when
// the test ends; its output is logged if the test failed.
func StartKapi(t testing.TB, opts ...Option) *Kapi {
	t.Helper()
	k, err := startKapi(t, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func startKapi(t testing.TB, opts ...Option) (*Kapi, error) {
	t.Helper()
	var c startConfig
	for _, o := range opts {
		o(&c)
	}
	if c.dataDir == "" {
		c.dataDir = t.TempDir()
	}
	if c.storageBackend == "" {
		c.storageBackend = os.Getenv(EnvStorageBackend)
	}
	bins := RequireBinaries(t)
	cacheDir := t.TempDir()
	var err error
	for range startAttempts {
		k := &Kapi{bins: bins, config: c, port: FreePort(t), dataDir: c.dataDir, cacheDir: cacheDir}
		if err = k.start(t, c); err == nil {
			return k, nil
		}
		// Another process took the free port between FreePort and kapi's
		// bind: try again with a new one.
		if !strings.Contains(k.Output(), "address already in use") {
			break
		}
	}
	return nil, err
}

func (k *Kapi) start(t testing.TB, c startConfig) error {
	t.Helper()
	port := k.port
	k.url = "https://127.0.0.1:" + strconv.Itoa(port)
	k.kubeconfig = filepath.Join(k.dataDir, KubeconfigName)
	args := []string{"serve",
		"--data-dir", k.dataDir,
		"--secure-port", strconv.Itoa(port),
		"--bind-address", "127.0.0.1",
	}
	if c.storageBackend != "" {
		args = append(args, "--storage-backend", c.storageBackend)
	}
	args = append(args, c.args...)

	k.out = &syncBuffer{}
	k.cmd = exec.Command(k.bins.Kapi, args...)
	k.cmd.Stdout, k.cmd.Stderr = k.out, k.out
	killWithParent(k.cmd)
	if err := k.cmd.Start(); err != nil {
		return fmt.Errorf("starting kapi: %w", err)
	}
	k.done = make(chan struct{})
	go func() {
		k.waitErr = k.cmd.Wait()
		close(k.done)
	}()
	t.Cleanup(func() {
		err := k.Stop()
		// A server that never became ready was reported, output and
		// all, by the error of its start.
		if k.restConfig == nil {
			return
		}
		if err != nil && !k.killed {
			t.Logf("stopping kapi: %v", err)
		}
		if t.Failed() {
			t.Logf("kapi %s output:\n%s", strings.Join(args, " "), k.Output())
		}
	})
	if err := k.waitReady(); err != nil {
		return fmt.Errorf("kapi %s: %w\noutput:\n%s", strings.Join(args, " "), err, k.Output())
	}
	return nil
}

// Stop sends SIGTERM and waits for kapi to exit, killing it after 20s. It
// returns how the process ended (nil for exit code 0); later calls return
// the same.
func (k *Kapi) Stop() error {
	k.stopOnce.Do(func() {
		// An error here means the process is gone already; Wait tells how.
		_ = k.cmd.Process.Signal(syscall.SIGTERM)
		timer := time.NewTimer(stopTimeout)
		defer timer.Stop()
		select {
		case <-k.done:
			k.stopErr = k.waitErr
		case <-timer.C:
			_ = k.cmd.Process.Kill()
			<-k.done
			k.stopErr = fmt.Errorf("kapi did not exit within %v of SIGTERM and was killed: %w", stopTimeout, k.waitErr)
		}
	})
	return k.stopErr
}

// Kill ends kapi with SIGKILL, as a crash or an OOM kill would, and waits
// for the process to go.
func (k *Kapi) Kill() {
	k.stopOnce.Do(func() {
		k.killed = true
		_ = k.cmd.Process.Kill()
		<-k.done
		k.stopErr = k.waitErr
	})
}

// Restart starts a stopped or killed kapi again with the same data dir,
// port and flags, so clients configured for the old process reach the new
// one, and returns once it is ready.
func (k *Kapi) Restart(t testing.TB) *Kapi {
	t.Helper()
	next := &Kapi{bins: k.bins, config: k.config, port: k.port, dataDir: k.dataDir, cacheDir: k.cacheDir}
	if err := next.start(t, k.config); err != nil {
		t.Fatal(err)
	}
	return next
}

// PID is the process id of the running kapi.
func (k *Kapi) PID() int { return k.cmd.Process.Pid }

// DataDir is the server's --data-dir.
func (k *Kapi) DataDir() string { return k.dataDir }

// URL is the server's https base URL.
func (k *Kapi) URL() string { return k.url }

// Kubeconfig is the path of the admin kubeconfig kapi wrote.
func (k *Kapi) Kubeconfig() string { return k.kubeconfig }

// Output is everything kapi printed so far, stdout and stderr interleaved.
func (k *Kapi) Output() string { return k.out.String() }

// RESTConfig returns a new admin client configuration. Client-side rate
// limiting is off: tests create objects in bursts, and throttling them only
// slows the suite.
func (k *Kapi) RESTConfig() *rest.Config {
	cfg := rest.CopyConfig(k.restConfig)
	cfg.QPS, cfg.Burst = -1, 0
	return cfg
}

// Clientset returns an admin clientset.
func (k *Kapi) Clientset() kubernetes.Interface {
	cs, err := kubernetes.NewForConfig(k.RESTConfig())
	if err != nil {
		panic(fmt.Sprintf("framework: clientset: %v", err))
	}
	return cs
}

// exited reports, without blocking, whether the process has ended.
func (k *Kapi) exited() error {
	select {
	case <-k.done:
		if k.waitErr == nil {
			return errors.New("kapi exited with status 0 before it was ready")
		}
		return fmt.Errorf("kapi exited before it was ready: %w", k.waitErr)
	default:
		return nil
	}
}
