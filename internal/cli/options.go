package cli

import (
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"time"

	utilnet "k8s.io/apimachinery/pkg/util/net"

	"github.com/kapi-dev/kapi/internal/controlplane"
)

// ServeOptions are the flags of `kapi serve`, grouped as kube-apiserver
// groups them. Flow: flags → ServeOptions → Complete → Validate → Config.
type ServeOptions struct {
	DataDir string

	// Secure serving.
	BindAddress      string
	SecurePort       int
	AdvertiseAddress string
	CertDir          string
	TLSCertFile      string
	TLSKeyFile       string

	// Authentication.
	ClientCAFile string

	// Storage.
	StorageBackend         string
	EtcdServers            []string
	EtcdPrefix             string
	EtcdCAFile             string
	EtcdCertFile           string
	EtcdKeyFile            string
	EtcdCompactionInterval time.Duration
	EtcdHealthcheckTimeout time.Duration
	EtcdReadycheckTimeout  time.Duration
	WatchCache             bool
	DefaultWatchCacheSize  int

	// Generic.
	MaxRequestsInFlight         int
	MaxMutatingRequestsInFlight int
	RequestTimeout              time.Duration
	MinRequestTimeout           int
	ShutdownDelayDuration       time.Duration
	MaxRequestBytes             int64

	serviceOptions
	securityOptions
	podAdmissionOptions
	controllerOptions
	aggregatorOptions
	flowControlOptions
	simulationOptions
	lifecycleOptions
	debugOptions
	tracingOptions
	memoryOptions

	// Logging.
	Verbosity int

	// resolveBindAddress picks the address to advertise for a bind
	// address (utilnet.ResolveBindAddress); tests replace it.
	resolveBindAddress func(bind net.IP) (net.IP, error)
}

// Storage backends `--storage-backend` accepts.
const (
	backendEtcd3  = "etcd3"
	backendMemory = "memory"
)

// NewServeOptions returns the defaults.
func NewServeOptions() *ServeOptions {
	return &ServeOptions{
		DataDir:                     "kapi-data",
		BindAddress:                 "127.0.0.1",
		SecurePort:                  6443,
		StorageBackend:              backendEtcd3,
		EtcdPrefix:                  "/registry",
		EtcdCompactionInterval:      5 * time.Minute,
		EtcdHealthcheckTimeout:      2 * time.Second,
		EtcdReadycheckTimeout:       2 * time.Second,
		WatchCache:                  true,
		DefaultWatchCacheSize:       1000,
		MaxRequestsInFlight:         400,
		MaxMutatingRequestsInFlight: 200,
		RequestTimeout:              time.Minute,
		MinRequestTimeout:           1800,
		MaxRequestBytes:             3 * 1024 * 1024,
		serviceOptions:              defaultServiceOptions(),
		securityOptions:             defaultSecurityOptions(),
		podAdmissionOptions:         defaultPodAdmissionOptions(),
		controllerOptions:           defaultControllerOptions(),
		aggregatorOptions:           defaultAggregatorOptions(),
		debugOptions:                defaultDebugOptions(),
		memoryOptions:               defaultMemoryOptions(),
		resolveBindAddress:          utilnet.ResolveBindAddress,
	}
}

// AddFlags registers every flag in its section.
func (o *ServeOptions) AddFlags(sets *namedFlagSets) {
	fs := sets.FlagSet("kapi")
	fs.StringVar(&o.DataDir, "data-dir", o.DataDir, "Directory for the embedded etcd data, the generated certificates and admin.kubeconfig.")

	fs = sets.FlagSet("secure serving")
	fs.StringVar(&o.BindAddress, "bind-address", o.BindAddress, "The IP address on which to listen for the --secure-port port.")
	fs.IntVar(&o.SecurePort, "secure-port", o.SecurePort, "The port on which to serve HTTPS with authentication and authorization.")
	fs.StringVar(&o.CertDir, "cert-dir", o.CertDir, "The directory where the generated TLS certs are kept (default <data-dir>/pki). Ignored if --tls-cert-file and --tls-private-key-file are given.")
	fs.StringVar(&o.TLSCertFile, "tls-cert-file", o.TLSCertFile, "File containing the default x509 certificate for HTTPS (CA cert, if any, concatenated after server cert).")
	fs.StringVar(&o.TLSKeyFile, "tls-private-key-file", o.TLSKeyFile, "File containing the default x509 private key matching --tls-cert-file.")

	fs = sets.FlagSet("authentication")
	fs.StringVar(&o.ClientCAFile, "client-ca-file", o.ClientCAFile, "If set, any request presenting a client certificate signed by one of the authorities in this file is authenticated (in addition to kapi's own CA).")

	fs = sets.FlagSet("etcd")
	fs.StringVar(&o.StorageBackend, "storage-backend", o.StorageBackend, "The storage backend for persistence. Options: 'etcd3' (embedded etcd in --data-dir unless --etcd-servers is set), 'memory' (ephemeral).")
	fs.StringSliceVar(&o.EtcdServers, "etcd-servers", o.EtcdServers, "List of etcd servers to connect with (scheme://ip:port), comma separated. Empty starts an embedded etcd.")
	fs.StringVar(&o.EtcdPrefix, "etcd-prefix", o.EtcdPrefix, "The prefix to prepend to all resource paths in etcd.")
	fs.StringVar(&o.EtcdCAFile, "etcd-cafile", o.EtcdCAFile, "SSL Certificate Authority file used to secure etcd communication.")
	fs.StringVar(&o.EtcdCertFile, "etcd-certfile", o.EtcdCertFile, "SSL certification file used to secure etcd communication.")
	fs.StringVar(&o.EtcdKeyFile, "etcd-keyfile", o.EtcdKeyFile, "SSL key file used to secure etcd communication.")
	fs.DurationVar(&o.EtcdCompactionInterval, "etcd-compaction-interval", o.EtcdCompactionInterval, "The interval of compaction requests. If 0, the compaction request from apiserver is disabled.")
	fs.DurationVar(&o.EtcdHealthcheckTimeout, "etcd-healthcheck-timeout", o.EtcdHealthcheckTimeout, "The timeout to use when checking etcd health.")
	fs.DurationVar(&o.EtcdReadycheckTimeout, "etcd-readycheck-timeout", o.EtcdReadycheckTimeout, "The timeout to use when checking etcd readiness.")
	fs.BoolVar(&o.WatchCache, "watch-cache", o.WatchCache, "Enable watch caching in the apiserver.")
	fs.IntVar(&o.DefaultWatchCacheSize, "default-watch-cache-size", o.DefaultWatchCacheSize, "How many recent events each resource's watch cache keeps for watches that resume from a resourceVersion. Zero disables the watch cache.")

	fs = sets.FlagSet("generic")
	fs.StringVar(&o.AdvertiseAddress, "advertise-address", o.AdvertiseAddress, "The IP address on which to advertise the apiserver to members of the cluster (the default/kubernetes endpoints); also added to the serving certificate. If blank, the --bind-address is used; if that is loopback or unspecified, the address of the host's default interface.")
	fs.IntVar(&o.MaxRequestsInFlight, "max-requests-inflight", o.MaxRequestsInFlight, "The maximum number of non-mutating requests in flight at a given time. Zero for no limit.")
	fs.IntVar(&o.MaxMutatingRequestsInFlight, "max-mutating-requests-inflight", o.MaxMutatingRequestsInFlight, "The maximum number of mutating requests in flight at a given time. Zero for no limit.")
	fs.DurationVar(&o.RequestTimeout, "request-timeout", o.RequestTimeout, "The default duration a handler must keep a request open before timing it out (not for watches).")
	fs.IntVar(&o.MinRequestTimeout, "min-request-timeout", o.MinRequestTimeout, "The minimum number of seconds a watch is kept open; the actual timeout is random between this and twice this value.")
	fs.DurationVar(&o.ShutdownDelayDuration, "shutdown-delay-duration", o.ShutdownDelayDuration, "Time to delay the termination: /readyz fails during this time while requests are still served.")
	fs.Int64Var(&o.MaxRequestBytes, "max-request-bytes", o.MaxRequestBytes, "The largest request body the server accepts, in bytes.")

	o.serviceOptions.addFlags(sets)
	o.securityOptions.addFlags(sets)
	o.podAdmissionOptions.addFlags(sets)
	o.controllerOptions.addFlags(sets)
	o.aggregatorOptions.addFlags(sets)
	o.flowControlOptions.addFlags(sets)
	o.lifecycleOptions.addFlags(sets)
	o.debugOptions.addFlags(sets)
	o.tracingOptions.addFlags(sets)
	o.memoryOptions.addFlags(sets)

	fs = sets.FlagSet("logs")
	fs.IntVarP(&o.Verbosity, "v", "v", o.Verbosity, "Number for the log level verbosity (0 info, 4 debug).")
}

// Complete fills the defaults that depend on other flags.
func (o *ServeOptions) Complete() error {
	o.defaultAdvertiseAddress()
	if o.CertDir == "" && o.DataDir != "" {
		o.CertDir = filepath.Join(o.DataDir, "pki")
	}
	if o.DataDir != "" {
		abs, err := filepath.Abs(o.DataDir)
		if err != nil {
			return fmt.Errorf("--data-dir: %w", err)
		}
		o.DataDir = abs
	}
	return nil
}

// defaultAdvertiseAddress chooses the advertise address as kube-apiserver
// does when none (or an unspecified one) is given: the bind address, or,
// when that is loopback or unspecified, the address of the interface
// holding the host's default route. That address is what the
// default/kubernetes Endpoints and EndpointSlice carry. Where upstream
// then refuses to start (no default route), kapi keeps advertising the
// bind address or loopback, and publishes the service without endpoints.
func (o *ServeOptions) defaultAdvertiseAddress() {
	if ip := net.ParseIP(o.AdvertiseAddress); o.AdvertiseAddress != "" && (ip == nil || !ip.IsUnspecified()) {
		return
	}
	bind := net.ParseIP(o.BindAddress)
	if bind == nil || o.resolveBindAddress == nil {
		return
	}
	o.AdvertiseAddress = ""
	if ip, err := o.resolveBindAddress(bind); err == nil && ip != nil {
		o.AdvertiseAddress = ip.String()
	}
}

// Validate reports every problem at once, each naming its flag.
func (o *ServeOptions) Validate() error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	if o.DataDir == "" {
		add("--data-dir must not be empty")
	}
	if net.ParseIP(o.BindAddress) == nil {
		add("--bind-address %q is not a valid IP address", o.BindAddress)
	}
	if o.AdvertiseAddress != "" && net.ParseIP(o.AdvertiseAddress) == nil {
		add("--advertise-address %q is not a valid IP address", o.AdvertiseAddress)
	}
	if o.SecurePort < 1 || o.SecurePort > 65535 {
		add("--secure-port %d must be between 1 and 65535, inclusive", o.SecurePort)
	}
	if (o.TLSCertFile == "") != (o.TLSKeyFile == "") {
		add("--tls-cert-file and --tls-private-key-file must be given together")
	}
	if !slices.Contains([]string{backendEtcd3, backendMemory}, o.StorageBackend) {
		add("--storage-backend %q is not supported: use %q or %q", o.StorageBackend, backendEtcd3, backendMemory)
	}
	if o.StorageBackend == backendMemory && len(o.EtcdServers) > 0 {
		add("--etcd-servers cannot be used with --storage-backend=memory")
	}
	for _, s := range o.EtcdServers {
		if !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "https://") && !strings.HasPrefix(s, "unix://") {
			add("--etcd-servers entry %q must start with http://, https:// or unix://", s)
		}
	}
	errs = append(errs, o.validateEtcd()...)
	errs = append(errs, o.serviceOptions.validate()...)
	errs = append(errs, o.securityOptions.validate()...)
	errs = append(errs, o.controllerOptions.validate()...)
	errs = append(errs, o.flowControlOptions.validate(o.MaxRequestsInFlight, o.MaxMutatingRequestsInFlight)...)
	errs = append(errs, o.simulationOptions.validate()...)
	errs = append(errs, o.lifecycleOptions.validate()...)
	errs = append(errs, o.debugOptions.validate()...)
	errs = append(errs, o.memoryOptions.validate()...)
	errs = append(errs, o.tracingOptions.validate()...)
	if !strings.HasPrefix(o.EtcdPrefix, "/") {
		add("--etcd-prefix %q must start with /", o.EtcdPrefix)
	}
	if o.MaxRequestsInFlight < 0 {
		add("--max-requests-inflight %d must not be negative", o.MaxRequestsInFlight)
	}
	if o.MaxMutatingRequestsInFlight < 0 {
		add("--max-mutating-requests-inflight %d must not be negative", o.MaxMutatingRequestsInFlight)
	}
	if o.RequestTimeout <= 0 {
		add("--request-timeout %v must be positive", o.RequestTimeout)
	}
	if o.MinRequestTimeout <= 0 {
		add("--min-request-timeout %d must be positive", o.MinRequestTimeout)
	}
	if o.ShutdownDelayDuration < 0 {
		add("--shutdown-delay-duration %v must not be negative", o.ShutdownDelayDuration)
	}
	if o.MaxRequestBytes <= 0 {
		add("--max-request-bytes %d must be positive", o.MaxRequestBytes)
	}
	return errors.Join(errs...)
}

// Config turns completed, valid options into the control plane's config.
func (o *ServeOptions) Config() *controlplane.Config {
	c := &controlplane.Config{
		DataDir:                     o.DataDir,
		BindAddress:                 net.ParseIP(o.BindAddress),
		SecurePort:                  o.SecurePort,
		CertDir:                     o.CertDir,
		TLSCertFile:                 o.TLSCertFile,
		TLSKeyFile:                  o.TLSKeyFile,
		ClientCAFile:                o.ClientCAFile,
		StorageBackend:              o.StorageBackend,
		EtcdServers:                 o.EtcdServers,
		EtcdPrefix:                  o.EtcdPrefix,
		EtcdCAFile:                  o.EtcdCAFile,
		EtcdCertFile:                o.EtcdCertFile,
		EtcdKeyFile:                 o.EtcdKeyFile,
		EtcdCompactionInterval:      o.EtcdCompactionInterval,
		EtcdHealthcheckTimeout:      o.EtcdHealthcheckTimeout,
		EtcdReadycheckTimeout:       o.EtcdReadycheckTimeout,
		MaxRequestsInFlight:         o.MaxRequestsInFlight,
		MaxMutatingRequestsInFlight: o.MaxMutatingRequestsInFlight,
		RequestTimeout:              o.RequestTimeout,
		MinRequestTimeout:           time.Duration(o.MinRequestTimeout) * time.Second,
		ShutdownDelayDuration:       o.ShutdownDelayDuration,
		MaxRequestBytes:             o.MaxRequestBytes,
	}
	if o.WatchCache {
		c.WatchCacheSize = o.DefaultWatchCacheSize
	}
	o.serviceOptions.fill(c)
	o.securityOptions.fill(c)
	o.podAdmissionOptions.fill(c)
	o.controllerOptions.fill(c)
	o.aggregatorOptions.fill(c)
	o.flowControlOptions.fill(c)
	o.simulationOptions.fill(c)
	o.lifecycleOptions.fill(c)
	o.debugOptions.fill(c)
	o.tracingOptions.fill(c)
	if ip := net.ParseIP(o.AdvertiseAddress); ip != nil && !ip.IsUnspecified() {
		c.AdvertiseAddress = ip
	}
	return c
}

// validateEtcd checks the etcd client and compaction flags.
func (o *ServeOptions) validateEtcd() []error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if (o.EtcdCertFile == "") != (o.EtcdKeyFile == "") {
		add("--etcd-certfile and --etcd-keyfile must be given together")
	}
	if len(o.EtcdServers) == 0 && (o.EtcdCAFile != "" || o.EtcdCertFile != "" || o.EtcdKeyFile != "") {
		add("--etcd-cafile, --etcd-certfile and --etcd-keyfile need --etcd-servers")
	}
	if o.EtcdCompactionInterval < 0 {
		add("--etcd-compaction-interval %v must not be negative", o.EtcdCompactionInterval)
	}
	if o.EtcdHealthcheckTimeout <= 0 {
		add("--etcd-healthcheck-timeout %v must be positive", o.EtcdHealthcheckTimeout)
	}
	if o.EtcdReadycheckTimeout <= 0 {
		add("--etcd-readycheck-timeout %v must be positive", o.EtcdReadycheckTimeout)
	}
	if o.DefaultWatchCacheSize < 0 {
		add("--default-watch-cache-size %d must not be negative", o.DefaultWatchCacheSize)
	}
	return errs
}
