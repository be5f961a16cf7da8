package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
)

// urlList is a flag holding comma-separated URLs, as etcd's URL flags do.
type urlList struct {
	urls *[]url.URL
}

func (l urlList) String() string {
	if l.urls == nil {
		return ""
	}
	s := make([]string, len(*l.urls))
	for i, u := range *l.urls {
		s[i] = u.String()
	}
	return strings.Join(s, ",")
}

func (l urlList) Set(v string) error {
	var urls []url.URL
	for _, s := range strings.Split(v, ",") {
		u, err := url.Parse(strings.TrimSpace(s))
		if err != nil {
			return err
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			return fmt.Errorf("URL %q: scheme must be http or https", s)
		}
		if u.Host == "" || (u.Path != "" && u.Path != "/") {
			return fmt.Errorf("URL %q: want scheme://host:port", s)
		}
		u.Path = ""
		urls = append(urls, *u)
	}
	*l.urls = urls
	return nil
}

// parseFlags turns etcd-style command-line flags into an embed.Config.
// Defaults are etcd's, except that etcd logs only errors and never compacts
// on its own (kapi, like kube-apiserver, compacts).
func parseFlags(args []string, stderr io.Writer) (*embed.Config, error) {
	cfg := embed.NewConfig()
	cfg.Logger = "zap"
	cfg.LogLevel = "error"
	cfg.AutoCompactionMode = embed.CompactorModePeriodic
	cfg.AutoCompactionRetention = "0"
	cfg.EnableGRPCGateway = false

	fs := flag.NewFlagSet("etcd", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: etcd [flags]\n\n"+
			"Runs one etcd member and prints %q on stdout once it serves clients.\n"+
			"SIGTERM or SIGINT stops it cleanly.\n\nFlags:\n", readyLine)
		fs.PrintDefaults()
	}

	fs.StringVar(&cfg.Name, "name", cfg.Name, "Human-readable name for this member.")
	dataDir := fs.String("data-dir", "", "Path to the data directory (default \"<name>.etcd\").")
	fs.Var(urlList{&cfg.ListenClientUrls}, "listen-client-urls", "URLs to listen on for client traffic.")
	fs.Var(urlList{&cfg.AdvertiseClientUrls}, "advertise-client-urls", "This member's client URLs to advertise to the rest of the cluster.")
	fs.Var(urlList{&cfg.ListenPeerUrls}, "listen-peer-urls", "URLs to listen on for peer traffic.")
	fs.Var(urlList{&cfg.AdvertisePeerUrls}, "initial-advertise-peer-urls", "This member's peer URLs to advertise to the rest of the cluster.")
	initialCluster := fs.String("initial-cluster", "", "Initial cluster configuration for bootstrapping, name=peerURL,... (default \"<name>=<initial-advertise-peer-urls>\").")
	fs.StringVar(&cfg.ClusterState, "initial-cluster-state", cfg.ClusterState, "Initial cluster state: new or existing.")
	fs.StringVar(&cfg.InitialClusterToken, "initial-cluster-token", cfg.InitialClusterToken, "Initial cluster token for the etcd cluster during bootstrap.")

	fs.StringVar(&cfg.ClientTLSInfo.CertFile, "cert-file", "", "Path to the client server TLS cert file.")
	fs.StringVar(&cfg.ClientTLSInfo.KeyFile, "key-file", "", "Path to the client server TLS key file.")
	fs.StringVar(&cfg.ClientTLSInfo.TrustedCAFile, "trusted-ca-file", "", "Path to the client server TLS trusted CA cert file.")
	fs.BoolVar(&cfg.ClientTLSInfo.ClientCertAuth, "client-cert-auth", false, "Enable client cert authentication.")

	fs.UintVar(&cfg.TickMs, "heartbeat-interval", cfg.TickMs, "Time (in milliseconds) of a heartbeat interval.")
	fs.UintVar(&cfg.ElectionMs, "election-timeout", cfg.ElectionMs, "Time (in milliseconds) for an election to timeout.")
	fs.BoolVar(&cfg.UnsafeNoFsync, "unsafe-no-fsync", false, "Disables fsync, unsafe, will cause data loss.")
	fs.DurationVar(&cfg.WatchProgressNotifyInterval, "watch-progress-notify-interval", cfg.WatchProgressNotifyInterval, "Duration of periodic watch progress notifications.")
	fs.Func("experimental-watch-progress-notify-interval", "Deprecated name of --watch-progress-notify-interval.", func(v string) error {
		d, err := time.ParseDuration(v)
		cfg.WatchProgressNotifyInterval = d
		return err
	})
	fs.StringVar(&cfg.LogLevel, "log-level", cfg.LogLevel, "Log level of etcd's own logs on stderr: debug, info, warn, error, panic, or fatal.")

	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	cfg.Dir = *dataDir
	if cfg.Dir == "" {
		cfg.Dir = cfg.Name + ".etcd"
	}
	cfg.InitialCluster = *initialCluster
	if cfg.InitialCluster == "" {
		cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	}
	tls := cfg.ClientTLSInfo
	if (tls.CertFile == "") != (tls.KeyFile == "") {
		return nil, errors.New("--cert-file and --key-file go together")
	}
	if tls.ClientCertAuth && tls.TrustedCAFile == "" {
		return nil, errors.New("--client-cert-auth needs --trusted-ca-file")
	}
	logger, err := newLogger(cfg.LogLevel, stderr)
	if err != nil {
		return nil, err
	}
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(logger)
	// embed.StartEtcd validates the rest.
	return cfg, nil
}
