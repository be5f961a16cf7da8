package cli

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kapi-dev/kapi/internal/controlplane"
)

// upstreamCertDir is kube-apiserver's default --cert-dir.
const upstreamCertDir = "/var/run/kubernetes"

// kubeAPIServerOptions are `kapi serve`'s options defaulted as
// kube-apiserver's, plus the kube-apiserver flags kapi accepts without
// implementing them.
type kubeAPIServerOptions struct {
	*ServeOptions
	AllowPrivileged bool
	// kapi never connects to a kubelet: pods/log, exec, attach and
	// port-forward do not depend on these, so they are accepted and ignored.
	KubeletClientCertificate, KubeletClientKey, KubeletCertificateAuthority string
	KubeletPreferredAddressTypes                                            []string
	// dataDirIsTemporary: no --data-dir was given, so complete made a
	// temporary one, removed at exit.
	dataDirIsTemporary bool
}

// kubeletFlags are the kubelet connection flags kapi ignores with a warning.
var kubeletFlags = []string{"kubelet-client-certificate", "kubelet-client-key", "kubelet-certificate-authority", "kubelet-preferred-address-types"}

// newKubeAPIServerOptions returns kube-apiserver's defaults where they
// differ from kapi's: anonymous requests are on, every request is
// authorized (AlwaysAllow), admission runs upstream's default plugins,
// certificates go to /var/run/kubernetes and there is no --data-dir:
// kapi's own state (its CA, the admin kubeconfig, an embedded etcd when
// no --etcd-servers is given) lives in a temporary directory that is
// removed at exit. No kube-controller-manager controller runs unless
// --controllers asks for some: a real kube-apiserver runs none (no
// default ServiceAccount, no namespace finalization), and tools that
// launch it (envtest) expect exactly that; the objects kube-apiserver
// writes itself (extension-apiserver-authentication, the legacy token
// tracking ConfigMap) are written either way.
func newKubeAPIServerOptions() *kubeAPIServerOptions {
	o := &kubeAPIServerOptions{ServeOptions: NewServeOptions()}
	o.Controllers = []string{}
	o.DataDir = ""
	o.CertDir = upstreamCertDir
	o.AnonymousAuth = true
	o.AuthorizationModes = []string{"AlwaysAllow"}
	o.EnableAggregatorRouting = false
	return o
}

func (o *kubeAPIServerOptions) addFlags(sets *namedFlagSets) {
	o.ServeOptions.AddFlags(sets)
	sets.FlagSet("kapi").Lookup("data-dir").Usage = "Directory for kapi's own state: its CA and admin client certificate, admin.kubeconfig, and the embedded etcd when --etcd-servers is empty. Empty uses a temporary directory removed at exit."
	sets.FlagSet("secure serving").Lookup("cert-dir").Usage = "The directory where the TLS certs are located. If --tls-cert-file and --tls-private-key-file are provided, this flag will be ignored; otherwise apiserver.crt and apiserver.key there are served, and generated (self-signed) if missing."
	sets.FlagSet("authentication").Lookup("anonymous-auth").Usage = "Enables anonymous requests to the secure port of the API server. Requests that are not rejected by another authentication method are treated as anonymous requests. Anonymous requests have a username of system:anonymous, and a group name of system:unauthenticated."
	sets.FlagSet("admission").Lookup("enable-admission-plugins").Usage = "Admission plugins that should be enabled in addition to default enabled ones. Upstream's names are accepted; naming one kapi does not implement is an error. Implemented: " + fmt.Sprint(controlplane.AdmissionPlugins) + "."
	sets.FlagSet("admission").Lookup("disable-admission-plugins").Usage = "Admission plugins that should be disabled although they are in the default enabled plugins list. Any of upstream's names is accepted."
	sets.FlagSet("controllers").Lookup("controllers").Usage = "kapi only: the kube-controller-manager controllers to run in-process, in kube-controller-manager's syntax ('*' all kapi has, 'foo' enables, '-foo' disables). Default none, as kube-apiserver runs none. kapi runs: " + strings.Join(controlplane.ControllerNames(), ", ") + "."
	sets.FlagSet("aggregator").Lookup("enable-aggregator-routing").Usage = "Turns on aggregator routing requests to endpoints IP rather than cluster IP. Off, as in kube-apiserver: a remote APIService's Service is reached at its cluster IP, which needs a service proxy (kube-proxy) on this host."
	fs := sets.FlagSet("kubelet")
	fs.StringVar(&o.KubeletClientCertificate, "kubelet-client-certificate", "", "Path to a client cert file for TLS to kubelets. Accepted and ignored: kapi never connects to a kubelet.")
	fs.StringVar(&o.KubeletClientKey, "kubelet-client-key", "", "Path to a client key file for TLS to kubelets. Accepted and ignored: kapi never connects to a kubelet.")
	fs.StringVar(&o.KubeletCertificateAuthority, "kubelet-certificate-authority", "", "Path to a cert file for the certificate authority of kubelets. Accepted and ignored: kapi never connects to a kubelet.")
	fs.StringSliceVar(&o.KubeletPreferredAddressTypes, "kubelet-preferred-address-types", []string{"Hostname", "InternalDNS", "InternalIP", "ExternalDNS", "ExternalIP"}, "List of the preferred NodeAddressTypes to use for kubelet connections. Accepted and ignored: kapi never connects to a kubelet.")
	sets.FlagSet("generic").BoolVar(&o.AllowPrivileged, "allow-privileged", o.AllowPrivileged, "If true, allow privileged containers. kapi never refuses privileged containers, so only true is accepted.")
}

// NewKubeAPIServerCommand returns the command kapi runs when invoked as
// `kube-apiserver`: `kapi serve` with kube-apiserver's flag names and
// defaults and no subcommand.
func NewKubeAPIServerCommand() *cobra.Command {
	return newKubeAPIServerCommand(newKubeAPIServerOptions())
}

func newKubeAPIServerCommand(o *kubeAPIServerOptions) *cobra.Command {
	sets := &namedFlagSets{}
	cmd := &cobra.Command{
		Use:           "kube-apiserver",
		Short:         "kapi, standing in for kube-apiserver",
		Long:          "kapi standing in for kube-apiserver: the same flag names and defaults; a flag kapi does not implement is refused by name unless ignoring it cannot change what a client observes.",
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			start := time.Now()
			logger, verbosity := newRuntimeLogger(o.Verbosity)
			cleanup, err := o.complete(cmd.Flags(), logger)
			defer cleanup()
			if err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return fmt.Errorf("invalid flags:\n%w", err)
			}
			// A second signal exits at once; the temporary data
			// directory goes with it.
			ctx := signalContext(logger, cleanup)
			cfg := o.Config()
			defer o.startMemoryLimit(logger, cfg)()
			cfg.Logger = logger
			cfg.Verbosity = verbosity
			cfg.Out = cmd.OutOrStdout()
			cfg.StartTime = start
			return controlplane.Run(ctx, cfg)
		},
	}
	o.addFlags(sets)
	sets.addTo(cmd.Flags())
	setSectionedUsage(cmd, sets)
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return fmt.Errorf("%w (kapi does not implement this kube-apiserver flag)", err)
	})
	return cmd
}

// complete applies the drop-in's rules, then `kapi serve`'s Complete. The
// returned cleanup removes the temporary data directory, if one was made.
func (o *kubeAPIServerOptions) complete(fs *pflag.FlagSet, logger *slog.Logger) (cleanup func(), err error) {
	cleanup = func() {}
	if err := o.acceptIgnored(fs, logger); err != nil {
		return cleanup, err
	}
	if err := o.mapAdmissionPlugins(); err != nil {
		return cleanup, err
	}
	if o.TLSCertFile == "" && o.TLSKeyFile == "" {
		if o.CertDir == "" {
			return cleanup, errors.New("--cert-dir must not be empty when --tls-cert-file is not given")
		}
		if o.TLSCertFile, o.TLSKeyFile, err = ensureSelfSignedServing(o.CertDir, o.servingHosts()); err != nil {
			return cleanup, err
		}
	}
	// kapi's own PKI (its CA and the admin identity it talks to itself
	// with) stays out of --cert-dir, which upstream fills only with
	// apiserver.crt and apiserver.key.
	o.CertDir = ""
	if o.DataDir == "" {
		dir, err := os.MkdirTemp("", "kapi-kube-apiserver-")
		if err != nil {
			return cleanup, fmt.Errorf("temporary data directory: %w", err)
		}
		cleanup = func() { _ = os.RemoveAll(dir) }
		o.DataDir = dir
		o.dataDirIsTemporary = true
	}
	return cleanup, o.Complete()
}

// Config is `kapi serve`'s, knowing whether the data directory is the
// temporary one complete made.
func (o *kubeAPIServerOptions) Config() *controlplane.Config {
	c := o.ServeOptions.Config()
	c.DataDirIsTemporary = o.dataDirIsTemporary
	return c
}

// acceptIgnored handles the kube-apiserver flags kapi accepts without
// implementing: each is accepted with one warning only for the values
// whose being ignored no client can observe.
func (o *kubeAPIServerOptions) acceptIgnored(fs *pflag.FlagSet, logger *slog.Logger) error {
	if fs.Changed("allow-privileged") {
		// kapi stores pods and never runs them, and its validation never
		// refuses a privileged container: it behaves as true. false would
		// make upstream reject privileged pods, which kapi would not.
		if !o.AllowPrivileged {
			return errors.New("--allow-privileged=false is not implemented by kapi: it never refuses privileged containers")
		}
		logger.Warn("flag accepted but ignored: kapi runs no containers and allows privileged ones", "flag", "--allow-privileged")
	}
	for _, name := range kubeletFlags {
		if fs.Changed(name) {
			logger.Warn("flag accepted but ignored: kapi never connects to a kubelet", "flag", "--"+name)
		}
	}
	return nil
}

// servingHosts are the names the generated serving certificate covers.
func (o *kubeAPIServerOptions) servingHosts() []string {
	hosts := []string{"localhost", "127.0.0.1", "::1"}
	for _, h := range []string{o.BindAddress, o.AdvertiseAddress} {
		if h != "" && h != "0.0.0.0" && h != "::" && !slices.Contains(hosts, h) {
			hosts = append(hosts, h)
		}
	}
	return hosts
}
