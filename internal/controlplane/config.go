// Package controlplane assembles kapi: storage, certificates, the scheme,
// the server chain (aggregator → core → extensions → not found), bootstrap
// data and the in-process controllers, and runs it.
package controlplane

import (
	"io"
	"log/slog"
	"net"
	"net/netip"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"

	"github.com/kapi-dev/kapi/internal/server"
	"github.com/kapi-dev/kapi/internal/server/tracing"
)

// Config is everything the control plane is built from; the CLI fills it
// from completed, validated options.
type Config struct {
	Logger *slog.Logger
	// Out receives the lines a person reads: where the kubeconfig is, and
	// when the server is ready.
	Out       io.Writer
	StartTime time.Time

	DataDir string
	// DataDirIsTemporary says DataDir is removed when the process exits
	// (the kube-apiserver drop-in's default): files kapi writes there are
	// not synced to disk.
	DataDirIsTemporary bool

	BindAddress      net.IP
	SecurePort       int
	AdvertiseAddress net.IP
	CertDir          string
	TLSCertFile      string
	TLSKeyFile       string
	ClientCAFile     string

	StorageBackend         string // "etcd3" or "memory"
	EtcdServers            []string
	EtcdPrefix             string
	EtcdCAFile             string
	EtcdCertFile           string
	EtcdKeyFile            string
	EtcdCompactionInterval time.Duration // 0 disables compaction
	EtcdHealthcheckTimeout time.Duration
	EtcdReadycheckTimeout  time.Duration
	// EmbeddedEtcdUnsafeNoFsync makes the embedded etcd skip fsync, as
	// etcd's --unsafe-no-fsync: for test servers in a temporary
	// directory, where a crash loses nothing anyone keeps (kapitest).
	EmbeddedEtcdUnsafeNoFsync bool
	// WatchCacheSize is the event history of each resource's watch cache;
	// 0 serves every read from storage.
	WatchCacheSize int

	// ServiceClusterIPRange is where services' cluster IPs come from; its
	// first address is the kubernetes service's.
	ServiceClusterIPRange netip.Prefix
	// ServiceNodePortBase and ServiceNodePortSize are the node port range.
	ServiceNodePortBase, ServiceNodePortSize int
	// ServiceAccountSigningKeyFile signs service-account tokens; empty
	// means a key generated into the data dir.
	ServiceAccountSigningKeyFile     string
	ServiceAccountIssuers            []string
	APIAudiences                     []string
	ServiceAccountMaxTokenExpiration time.Duration

	MaxRequestsInFlight         int
	MaxMutatingRequestsInFlight int
	RequestTimeout              time.Duration
	MinRequestTimeout           time.Duration
	ShutdownDelayDuration       time.Duration
	MaxRequestBytes             int64

	Security SecurityConfig
	// PodAdmission configures the pod admission plugins.
	PodAdmission PodAdmissionConfig

	// Ready, when set, is called once, on its own goroutine, when the
	// server serves and every post-start hook has finished, with the
	// administrator's config (the in-process harness waits on it).
	// Not called when Run fails or ctx ends first.
	Ready func(*rest.Config)

	// Controllers is --controllers in kube-controller-manager's syntax
	// ("*", "name", "-name"); nil means "*", every controller kapi has,
	// and an empty list none.
	Controllers []string
	// ClusterSigningCertFile and ClusterSigningKeyFile sign the
	// certificates of approved CertificateSigningRequests; empty means
	// kapi's own CA in the cert dir.
	ClusterSigningCertFile, ClusterSigningKeyFile string
	// ClusterSigningDuration is the longest certificate the CSR signer
	// issues; 0 means a year.
	ClusterSigningDuration time.Duration

	// controllerClocks replaces, for tests, the clock of the named
	// in-process controllers (a fake clock drives a CronJob's schedule).
	controllerClocks map[string]clock.WithTicker
	// LeaderElection gates the controllers behind upstream's
	// kube-controller-manager Lease; off when built in code.
	LeaderElection LeaderElectionConfig
	// TerminatedPodGCThreshold is --terminated-pod-gc-threshold: the pod
	// garbage collector deletes the oldest terminated Pods beyond it;
	// zero or less turns that part off, as upstream (the flag defaults to
	// 12500).
	TerminatedPodGCThreshold int
	// HorizontalPodAutoscalerSyncPeriod is
	// --horizontal-pod-autoscaler-sync-period: how often each HPA is
	// reconciled; zero means upstream's 15s.
	HorizontalPodAutoscalerSyncPeriod time.Duration

	// DisableAggregatorRouting is --enable-aggregator-routing=false: the
	// aggregator reaches a remote APIService's Service at its cluster IP
	// (kube-apiserver's default) instead of an endpoint's address (kapi's
	// default: it runs no service proxy).
	DisableAggregatorRouting bool
	// aggregatorAvailabilityRecheck replaces, for tests, the period of
	// the remote APIServices' availability checks (0: 30s).
	aggregatorAvailabilityRecheck time.Duration
	// DisablePriorityAndFairness is --enable-priority-and-fairness=false:
	// the max-in-flight limits apply instead of API Priority and Fairness
	// (on by default, as upstream, also for Configs built in code).
	DisablePriorityAndFairness bool
	// SimulatedNodes is --simulated-nodes: how many kubelets kapi
	// simulates (Nodes kapi-node-0..N-1, their leases and heartbeats, and
	// the lifecycle of the Pods bound to them); 0 simulates none.
	SimulatedNodes int
	// SimulatedNodeTemplate is the Node every simulated node takes its
	// capacity, allocatable, labels, annotations and taints from; nil is
	// the default (32 CPUs, 256Gi, 110 pods, 100Gi ephemeral storage).
	SimulatedNodeTemplate *corev1.Node
	// Lifecycle holds the shutdown, GOAWAY, CORS and livez flags (see
	// config_lifecycle.go).
	Lifecycle LifecycleConfig
	// Profiling and debugging (apfconfig helper). DisableProfiling is
	// --profiling=false: no /debug/pprof/ nor /debug/flags/v (served by
	// default, as kube-apiserver does). ContentionProfiling is
	// --contention-profiling: the block profile records every event.
	// Verbosity is the -v level /debug/flags/v changes and the request
	// log reads; nil gives the server a level of 0 of its own.
	DisableProfiling    bool
	ContentionProfiling bool
	Verbosity           *server.Verbosity
	// Tracing is the --tracing-config-file: requests are traced with
	// OpenTelemetry (internal/server/tracing) and the sampled spans sent
	// to its OTLP gRPC endpoint; the provider is shut down, flushing
	// what it holds, when Run returns. nil traces nothing and installs
	// neither the tracing filter nor the traced etcd and webhook clients.
	Tracing *tracing.Config
	// tracingBatchTimeout replaces, for tests, the 5s the tracer
	// provider may hold a span before sending it.
	tracingBatchTimeout time.Duration
	// apfEnsurePeriod replaces, for tests, the minute between two rounds
	// of the API Priority and Fairness configuration producer.
	apfEnsurePeriod time.Duration
}

// DefaultServiceAccountIssuer is the issuer of service-account tokens when
// none is configured.
const DefaultServiceAccountIssuer = "https://kubernetes.default.svc.cluster.local"

// defaultServices fills the service and token settings a Config built in
// code (tests, the in-process harness) may leave empty, with the flags'
// defaults.
func (c *Config) defaultServices() {
	if !c.ServiceClusterIPRange.IsValid() {
		c.ServiceClusterIPRange = netip.MustParsePrefix("10.0.0.0/24")
	}
	if c.ServiceNodePortSize == 0 {
		c.ServiceNodePortBase, c.ServiceNodePortSize = 30000, 2768
	}
	if len(c.ServiceAccountIssuers) == 0 {
		c.ServiceAccountIssuers = []string{DefaultServiceAccountIssuer}
	}
	if len(c.APIAudiences) == 0 {
		c.APIAudiences = []string{c.ServiceAccountIssuers[0]}
	}
}
