// Package etcdcluster runs a real multi-member etcd cluster for tests: each
// member is its own process of the etcd command in test/tools/etcd, on
// loopback ports, so a test can kill a member with SIGKILL, restart it, and
// watch what kapi does meanwhile. The command is built once per test
// process, into the user's cache directory (kapi-etcdcluster/), and each
// member's stdout and stderr go to m<i>.log in the cluster's directory.
//
// Methods that fail the test (Start, Kill, Restart, Client) call Fatalf and
// so must be called from the goroutine running the test, like t.Fatal.
package etcdcluster

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/kapi-dev/kapi/internal/storage/etcd3/embedded"
)

// Timing. The raft ticks are shorter than etcd's defaults (100 ms
// heartbeats, 1 s elections) so that a cluster that lost its leader elects
// another quickly, and still far above loopback latency.
const (
	heartbeatMs   = 50
	electionMs    = 500
	startTimeout  = 60 * time.Second
	stopGrace     = 20 * time.Second
	pollInterval  = 20 * time.Millisecond
	startAttempts = 3
	logTailLines  = 40
	// healthKey is the key etcd's own health check reads.
	healthKey = "health"
)

// Options configure a cluster.
type Options struct {
	// Members is the number of members; 0 means 3.
	Members int
	// TLS serves clients over TLS with a generated CA, a serving certificate
	// for 127.0.0.1 and localhost, and requires a client certificate signed
	// by that CA (see TLSFiles). Peers talk plain HTTP.
	TLS bool
	// Dir holds the members' data directories and logs (m<i>/ and
	// m<i>.log) and the TLS files (pki/); "" means tb.TempDir().
	Dir string
}

// Cluster is a running etcd cluster, stopped by the cleanup of the test
// that started it.
type Cluster struct {
	tb        testing.TB
	bin       string
	dir       string
	token     string
	tls       *tlsFiles
	clientTLS *tls.Config
	members   []*member

	mu sync.Mutex // guards each member's proc
}

// Start builds the etcd command (once per test process), starts a cluster
// as opts says and waits until every member serves linearizable reads, so
// the cluster has a leader. The test's cleanup stops every member.
func Start(tb testing.TB, opts Options) *Cluster {
	tb.Helper()
	if opts.Members == 0 {
		opts.Members = 3
	}
	if opts.Members < 0 {
		tb.Fatalf("etcdcluster: %d members", opts.Members)
	}
	if opts.Dir == "" {
		opts.Dir = tb.TempDir()
	}
	bin, err := binary()
	if err != nil {
		tb.Fatalf("etcdcluster: building the etcd command: %v", err)
	}
	c := &Cluster{tb: tb, bin: bin, dir: opts.Dir}
	if opts.TLS {
		if c.tls, err = newTLSFiles(filepath.Join(opts.Dir, "pki")); err != nil {
			tb.Fatalf("etcdcluster: TLS files: %v", err)
		}
		if c.clientTLS, err = c.tls.clientConfig(); err != nil {
			tb.Fatalf("etcdcluster: %v", err)
		}
	}
	tb.Cleanup(func() { c.stopAll(true) })

	// Free ports are picked before the members bind them, so another
	// process can take one in between; start again on new ports then.
	for attempt := 1; ; attempt++ {
		failed, err := c.boot(opts.Members)
		if err == nil {
			return c
		}
		if failed == nil {
			tb.Fatalf("etcdcluster: %v", err)
		}
		tail := logTail(failed.logPath, logTailLines)
		if attempt < startAttempts && strings.Contains(tail, "address already in use") {
			c.stopAll(false)
			for _, m := range c.members {
				if err := os.RemoveAll(m.dataDir); err != nil {
					tb.Fatalf("etcdcluster: %v", err)
				}
			}
			continue
		}
		tb.Fatalf("etcdcluster: starting member %d: %v\n--- last lines of %s ---\n%s", failed.index, err, failed.logPath, tail)
	}
}

// boot starts n members on fresh ports and data directories and waits until
// all serve. On failure it returns the member that failed, if one did.
func (c *Cluster) boot(n int) (*member, error) {
	ports, err := embedded.FreePorts(2 * n)
	if err != nil {
		return nil, err
	}
	c.token = "etcdcluster-" + randomHex()
	scheme := "http"
	if c.tls != nil {
		scheme = "https"
	}
	c.members = make([]*member, n)
	for i := range c.members {
		name := fmt.Sprintf("m%d", i)
		c.members[i] = &member{
			index:     i,
			name:      name,
			dataDir:   filepath.Join(c.dir, name),
			logPath:   filepath.Join(c.dir, name+".log"),
			clientURL: fmt.Sprintf("%s://127.0.0.1:%d", scheme, ports[2*i]),
			peerURL:   fmt.Sprintf("http://127.0.0.1:%d", ports[2*i+1]),
		}
	}
	procs := make([]*process, n)
	for i, m := range c.members {
		p, err := m.start(c.bin, c.args(m, "new"))
		if err != nil {
			return m, err
		}
		c.setProc(m, p)
		procs[i] = p
	}
	deadline := time.Now().Add(startTimeout)
	for i, m := range c.members {
		if err := procs[i].waitReady(deadline); err != nil {
			return m, err
		}
	}
	for i, m := range c.members {
		if err := c.waitServing(m, procs[i], deadline); err != nil {
			return m, err
		}
	}
	return nil, nil
}

// args are the etcd command's flags for member m.
func (c *Cluster) args(m *member, state string) []string {
	peers := make([]string, len(c.members))
	for i, p := range c.members {
		peers[i] = p.name + "=" + p.peerURL
	}
	args := []string{
		"--name=" + m.name,
		"--data-dir=" + m.dataDir,
		"--listen-client-urls=" + m.clientURL,
		"--advertise-client-urls=" + m.clientURL,
		"--listen-peer-urls=" + m.peerURL,
		"--initial-advertise-peer-urls=" + m.peerURL,
		"--initial-cluster=" + strings.Join(peers, ","),
		"--initial-cluster-state=" + state,
		"--initial-cluster-token=" + c.token,
		fmt.Sprintf("--heartbeat-interval=%d", heartbeatMs),
		fmt.Sprintf("--election-timeout=%d", electionMs),
		"--unsafe-no-fsync",
	}
	if c.tls != nil {
		args = append(args, c.tls.serverArgs()...)
	}
	return args
}

// waitServing polls a linearizable read on m's endpoint alone until it
// succeeds: m then has a leader and has applied everything committed
// before the read.
func (c *Cluster) waitServing(m *member, p *process, deadline time.Time) error {
	cli, err := c.newClient([]string{m.clientURL})
	if err != nil {
		return err
	}
	defer cli.Close()
	for {
		try := time.Now().Add(2 * time.Second)
		if try.After(deadline) {
			try = deadline
		}
		ctx, cancel := context.WithDeadline(context.Background(), try)
		_, err := cli.Get(ctx, healthKey)
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not serving before the deadline: %w", err)
		}
		select {
		case <-p.exited:
			return fmt.Errorf("exited: %v", p.err)
		case <-time.After(pollInterval):
		}
	}
}

// Endpoints are the members' client URLs, in member order.
func (c *Cluster) Endpoints() []string {
	eps := make([]string, len(c.members))
	for i, m := range c.members {
		eps[i] = m.clientURL
	}
	return eps
}

// Kill sends SIGKILL to member i and waits for the process to exit.
func (c *Cluster) Kill(i int) {
	c.tb.Helper()
	m := c.member(i)
	c.mu.Lock()
	p := m.proc
	m.proc = nil
	c.mu.Unlock()
	if p == nil {
		c.tb.Fatalf("etcdcluster: Kill(%d): member is not running", i)
	}
	p.kill()
}

// Restart starts member i again with its data directory, ports and flags,
// as an existing member, and waits until it serves linearizable reads, so
// it has caught up with the cluster.
func (c *Cluster) Restart(i int) {
	c.tb.Helper()
	m := c.member(i)
	if c.running(m) != nil {
		c.tb.Fatalf("etcdcluster: Restart(%d): member is running; Kill it first", i)
	}
	p, err := m.start(c.bin, c.args(m, "existing"))
	if err == nil {
		c.setProc(m, p)
		deadline := time.Now().Add(startTimeout)
		if err = p.waitReady(deadline); err == nil {
			err = c.waitServing(m, p, deadline)
		}
	}
	if err != nil {
		c.tb.Fatalf("etcdcluster: restarting member %d: %v\n--- last lines of %s ---\n%s", i, err, m.logPath, logTail(m.logPath, logTailLines))
	}
}

// Client returns a client on every endpoint (with the client certificate
// when the cluster serves TLS), closed when tb's test ends.
func (c *Cluster) Client(tb testing.TB) *clientv3.Client {
	tb.Helper()
	cli, err := c.newClient(c.Endpoints())
	if err != nil {
		tb.Fatalf("etcdcluster: client: %v", err)
	}
	tb.Cleanup(func() { _ = cli.Close() })
	return cli
}

// TLSFiles are the CA certificate that signed the members' serving
// certificates and a client certificate and key they accept; all "" when
// the cluster serves plain HTTP.
func (c *Cluster) TLSFiles() (caFile, certFile, keyFile string) {
	if c.tls == nil {
		return "", "", ""
	}
	return c.tls.ca, c.tls.clientCert, c.tls.clientKey
}

func (c *Cluster) newClient(endpoints []string) (*clientv3.Client, error) {
	return clientv3.New(clientv3.Config{
		Endpoints:   endpoints,
		DialTimeout: 5 * time.Second,
		TLS:         c.clientTLS,
		Logger:      zap.NewNop(),
	})
}

func (c *Cluster) member(i int) *member {
	c.tb.Helper()
	if i < 0 || i >= len(c.members) {
		c.tb.Fatalf("etcdcluster: no member %d in a cluster of %d", i, len(c.members))
	}
	return c.members[i]
}

func (c *Cluster) setProc(m *member, p *process) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m.proc = p
}

// Leader returns the index of the member that a running member reports as
// the leader, or -1 when none does (no quorum, or no member running).
func (c *Cluster) Leader() int {
	cli, err := c.newClient(c.Endpoints())
	if err != nil {
		return -1
	}
	defer cli.Close()
	for i, m := range c.members {
		if c.running(m) == nil {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		st, err := cli.Status(ctx, m.clientURL)
		cancel()
		if err == nil && st.Leader != 0 && st.Leader == st.Header.MemberId {
			return i
		}
	}
	return -1
}

func (c *Cluster) running(m *member) *process {
	c.mu.Lock()
	defer c.mu.Unlock()
	return m.proc
}

// stopAll stops every running member with SIGTERM and waits. The leader
// stops last: a leader that gets SIGTERM hands its leadership to a peer
// first, which waits out a request timeout (seconds) when that peer is
// stopping at the same time. With report set, a member that does not exit
// cleanly fails the test.
func (c *Cluster) stopAll(report bool) {
	leader := c.Leader()
	c.mu.Lock()
	var first, last []*member
	procs := map[*member]*process{}
	for i, m := range c.members {
		if m.proc == nil {
			continue
		}
		procs[m] = m.proc
		m.proc = nil
		if i == leader {
			last = append(last, m)
		} else {
			first = append(first, m)
		}
	}
	c.mu.Unlock()
	errs := map[*member]error{}
	var mu sync.Mutex
	for _, group := range [][]*member{first, last} {
		var wg sync.WaitGroup
		for _, m := range group {
			wg.Go(func() {
				err := procs[m].stop(stopGrace)
				mu.Lock()
				errs[m] = err
				mu.Unlock()
			})
		}
		wg.Wait()
	}
	if !report {
		return
	}
	for _, m := range c.members {
		if err := errs[m]; err != nil {
			c.tb.Errorf("etcdcluster: member %d did not stop cleanly: %v\n--- last lines of %s ---\n%s",
				m.index, err, m.logPath, logTail(m.logPath, logTailLines))
		}
	}
}

func randomHex() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}
