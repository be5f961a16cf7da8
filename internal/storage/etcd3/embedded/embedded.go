// Package embedded runs a single-member etcd inside the kapi process, the
// default storage of `kapi serve`. Its data lives in one directory and
// survives restarts; clients reach it over loopback.
package embedded

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.etcd.io/etcd/server/v3/etcdserver"
	"go.etcd.io/etcd/server/v3/storage/wal"
	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"
	"go.uber.org/zap/zapcore"
	"google.golang.org/grpc"
)

// DefaultQuotaBackendBytes is the backend size at which etcd refuses writes
// (2 GiB, etcd's own recommended ceiling for a default setup is 8 GiB).
const DefaultQuotaBackendBytes = 2 << 30

// Options configure an embedded etcd.
type Options struct {
	// Dir holds etcd's data; it is created with mode 0700 if missing.
	Dir string
	// Logger receives etcd's error logs; nil discards.
	Logger *slog.Logger
	// QuotaBackendBytes caps the database size; 0 means
	// DefaultQuotaBackendBytes.
	QuotaBackendBytes int64
	// UnsafeNoFsync skips fsync. Only for tests: a crash can lose data.
	UnsafeNoFsync bool
	// ListenClientURLs, when set, are where etcd serves clients (the
	// drop-in `etcd` names them); empty picks a free loopback port.
	// AdvertiseClientURLs default to them.
	ListenClientURLs, AdvertiseClientURLs []url.URL
	// ListenPeerURLs, when set with ListenClientURLs, are where etcd
	// listens for peers; a single member never hears from one.
	ListenPeerURLs []url.URL
	// ClientDialOptions are added to the dial options of the server's
	// client (kapi's tracing interceptor).
	ClientDialOptions []grpc.DialOption
}

// Server is a running embedded etcd with a client connected to it.
type Server struct {
	etcd      *embed.Etcd
	client    *clientv3.Client
	endpoints []string
	closeOnce sync.Once
	closeErr  error
	// ready closes once etcd serves (readyErr nil) or failed to start.
	ready    chan struct{}
	readyErr error
}

// Start runs etcd with its data in dir and waits until it serves. ctx bounds
// the startup only; the server runs until Close.
func Start(ctx context.Context, dir string, logger *slog.Logger) (*Server, error) {
	return StartWithOptions(ctx, Options{Dir: dir, Logger: logger})
}

// StartWithOptions runs etcd as opts says and waits until it serves.
func StartWithOptions(ctx context.Context, opts Options) (*Server, error) {
	s, err := Launch(ctx, opts)
	if err != nil {
		return nil, err
	}
	if err := s.WaitReady(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Launch runs etcd as opts says without waiting for it to serve, which a
// single member does once it has elected itself (a few ms): the caller
// can build what does not touch storage meanwhile. The client must not
// be used before WaitReady returned nil; a watch would be refused for
// want of a leader.
func Launch(ctx context.Context, opts Options) (*Server, error) {
	if opts.Dir == "" {
		return nil, errors.New("embedded etcd: no data directory")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("embedded etcd: %w", err)
	}
	fresh := isFresh(opts.Dir)
	// Free ports are picked before etcd binds them, so another process can
	// take one in between; try again with new ports when that happens.
	if len(opts.ListenClientURLs) > 0 {
		// The caller chose the ports; a conflict is theirs to handle.
		e, err := startEtcd(opts)
		if err != nil {
			return nil, err
		}
		return connect(ctx, e, opts, fresh)
	}
	var lastErr error
	for range 3 {
		e, err := startEtcd(opts)
		if err == nil {
			return connect(ctx, e, opts, fresh)
		}
		lastErr = err
		if !strings.Contains(err.Error(), "address already in use") {
			break
		}
	}
	return nil, lastErr
}

// electionTiming is the raft tick and election timeout; a test makes the
// timeout too long to be what elects the member.
var electionTiming = struct{ tickMs, electionMs uint }{10, 50}

// startEtcd starts etcd on fresh loopback ports (or the options'); it
// serves once its ReadyNotify fires.
func startEtcd(opts Options) (*embed.Etcd, error) {
	ports, err := FreePorts(2)
	if err != nil {
		return nil, fmt.Errorf("embedded etcd: %w", err)
	}
	clientURL := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", ports[0])}
	peerURL := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", ports[1])}

	cfg := embed.NewConfig()
	cfg.Name = "kapi"
	cfg.Dir = opts.Dir
	cfg.ListenClientUrls = []url.URL{clientURL}
	cfg.AdvertiseClientUrls = []url.URL{clientURL}
	cfg.ListenPeerUrls = []url.URL{peerURL}
	cfg.AdvertisePeerUrls = []url.URL{peerURL}
	if len(opts.ListenClientURLs) > 0 {
		cfg.ListenClientUrls = opts.ListenClientURLs
		cfg.AdvertiseClientUrls = opts.AdvertiseClientURLs
		if len(cfg.AdvertiseClientUrls) == 0 {
			cfg.AdvertiseClientUrls = opts.ListenClientURLs
		}
		if len(opts.ListenPeerURLs) > 0 {
			cfg.ListenPeerUrls = opts.ListenPeerURLs
			// A peer port of 0 is bound at random and cannot be
			// advertised; the member list only names itself.
			if opts.ListenPeerURLs[0].Port() != "0" {
				cfg.AdvertisePeerUrls = opts.ListenPeerURLs
			}
		}
	}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	// A new member campaigns at once (campaignNow); the timeout elects a
	// restarted one, or a new one should the campaign fail. With no peers there are no heartbeats on a
	// network, so short ticks cost only a hundred cheap timer wakeups a
	// second; 50 ms is the shortest election etcd allows for 10 ms ticks.
	cfg.TickMs, cfg.ElectionMs = electionTiming.tickMs, electionTiming.electionMs
	// The raft log is held in memory from one snapshot to the next, plus
	// the catch-up entries kept for slow followers. With etcd's defaults
	// (10,000 and 5,000) a server that wrote 10,000 objects of 1 KiB
	// holds ~20 MB of log it never reads again. A single member has no
	// followers, and its snapshots are small (the backend is not copied).
	cfg.SnapshotCount = 1000
	cfg.SnapshotCatchUpEntries = 100
	cfg.QuotaBackendBytes = opts.QuotaBackendBytes
	if cfg.QuotaBackendBytes == 0 {
		cfg.QuotaBackendBytes = DefaultQuotaBackendBytes
	}
	// kapi compacts on its own schedule; etcd must not.
	cfg.AutoCompactionMode = embed.CompactorModePeriodic
	cfg.AutoCompactionRetention = "0"
	cfg.EnableGRPCGateway = false
	cfg.UnsafeNoFsync = opts.UnsafeNoFsync
	cfg.Logger = "zap"
	cfg.LogLevel = "error"
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(newZapLogger(opts.Logger, zapcore.ErrorLevel))

	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, fmt.Errorf("embedded etcd: %w", err)
	}
	return e, nil
}

// connect opens a client to a started etcd and follows its start: ready
// closes when it serves, fails, stops or ctx ends.
func connect(ctx context.Context, e *embed.Etcd, opts Options, fresh bool) (*Server, error) {
	endpoints := make([]string, 0, len(e.Clients))
	for _, l := range e.Clients {
		endpoints = append(endpoints, "http://"+l.Addr().String())
	}
	client, err := clientv3.New(clientv3.Config{
		Endpoints:   endpoints,
		DialTimeout: 5 * time.Second,
		DialOptions: opts.ClientDialOptions,
		Logger:      newZapLogger(opts.Logger, zapcore.ErrorLevel),
	})
	if err != nil {
		e.Close()
		return nil, fmt.Errorf("embedded etcd: client: %w", err)
	}
	s := &Server{etcd: e, client: client, endpoints: endpoints, ready: make(chan struct{})}
	if fresh {
		go campaignNow(e.Server)
	}
	go func() {
		defer close(s.ready)
		select {
		case <-e.Server.ReadyNotify():
		case err := <-e.Err():
			s.readyErr = fmt.Errorf("embedded etcd: %w", err)
		case <-e.Server.StopNotify():
			s.readyErr = errors.New("embedded etcd: stopped before it served")
		case <-ctx.Done():
			s.readyErr = fmt.Errorf("embedded etcd: %w", ctx.Err())
		}
	}()
	return s, nil
}

// campaignNow has a new member elect itself at once instead of after its
// randomized election timeout (10-50 ms of every start with the ticks
// above). kapi's etcd is always a cluster of one, so nobody else could
// win. Raft takes a MsgHup from one of the node's own local threads as
// the cue to campaign, as if the timeout had fired. Until the member has
// applied its bootstrap membership it refuses the cue, so the cue is
// repeated each millisecond until there is a leader; one that comes after
// the election is ignored by raft. Should every cue fail, the timeout
// still elects the member, as without them.
//
// Only a new member (isFresh) is cued: a restarted one begins from a raft
// snapshot etcd rebuilds from its backend, and raft, asked to campaign
// before it has taken that snapshot in, scans log entries the snapshot
// replaced and panics (seen once in 8 kill-and-restart runs).
func campaignNow(s *etcdserver.EtcdServer) {
	hup := &raftpb.Message{Type: raftpb.MsgHup.Enum(), From: new(raft.LocalAppendThread), To: new(uint64(s.MemberID()))}
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	deadline := time.After(time.Second)
	for s.Leader() == 0 {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		_ = s.Process(ctx, hup)
		cancel()
		select {
		case <-s.ReadyNotify():
			return
		case <-s.StoppingNotify():
			return
		case <-deadline:
			return
		case <-tick.C:
		}
	}
}

// isFresh reports whether dir holds no member yet: etcd keeps the
// member's write-ahead log under member/wal.
func isFresh(dir string) bool {
	return !wal.Exist(filepath.Join(dir, "member", "wal"))
}

// WaitReady waits until etcd serves, and says why when it never will.
func (s *Server) WaitReady(ctx context.Context) error {
	select {
	case <-s.ready:
		return s.readyErr
	case <-ctx.Done():
		return fmt.Errorf("embedded etcd: %w", ctx.Err())
	}
}

// FreePorts finds n distinct free loopback ports. Another process may take
// one before the caller binds it; callers retry on "address already in use".
func FreePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close() // hold every port until all are chosen
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// Client is connected to the server and closed by Close.
func (s *Server) Client() *clientv3.Client { return s.client }

// Endpoints are the client URLs.
func (s *Server) Endpoints() []string { return append([]string(nil), s.endpoints...) }

// Close closes the client, stops etcd and waits until it has stopped.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.closeErr = s.client.Close()
		s.etcd.Close()
		<-s.etcd.Server.StopNotify()
	})
	return s.closeErr
}
