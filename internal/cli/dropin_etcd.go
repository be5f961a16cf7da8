package cli

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kapi-dev/kapi/internal/memlimit"
	"github.com/kapi-dev/kapi/internal/storage/etcd3/embedded"
)

// etcdOptions are the etcd flags the drop-in accepts: those
// controller-runtime's envtest passes, named and defaulted as etcd's.
type etcdOptions struct {
	DataDir             string
	Name                string
	ListenClientURLs    []string
	AdvertiseClientURLs []string
	ListenPeerURLs      []string
	UnsafeNoFsync       bool
}

// NewEtcdCommand returns the command kapi runs when invoked as `etcd`: a
// single-member embedded etcd serving the URLs its flags name until
// SIGTERM or SIGINT.
func NewEtcdCommand() *cobra.Command { return newEtcdCommand(newEtcdOptions()) }

// newEtcdOptions returns etcd's defaults.
func newEtcdOptions() *etcdOptions {
	return &etcdOptions{
		Name:                "default",
		ListenClientURLs:    []string{"http://localhost:2379"},
		AdvertiseClientURLs: []string{"http://localhost:2379"},
		ListenPeerURLs:      []string{"http://localhost:2380"},
	}
}

func newEtcdCommand(o *etcdOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:           "etcd",
		Short:         "kapi's embedded etcd, standing in for the etcd binary",
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts, err := o.embedded()
			if err != nil {
				return fmt.Errorf("invalid flags:\n%w", err)
			}
			logger := newLogger(0)
			opts.Logger = logger
			ctx := signalContext(logger)
			s, err := embedded.StartWithOptions(ctx, opts)
			if err != nil {
				return err
			}
			logger.Info("etcd serving", "clientURLs", strings.Join(s.Endpoints(), ","))
			memlimit.SettleAfterStart(logger)
			<-ctx.Done()
			return s.Close()
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.DataDir, "data-dir", o.DataDir, "Path to the data directory (default ${name}.etcd).")
	fs.StringVar(&o.Name, "name", o.Name, "Human-readable name for this member.")
	fs.StringSliceVar(&o.ListenClientURLs, "listen-client-urls", o.ListenClientURLs, "List of URLs to listen on for client traffic.")
	fs.StringSliceVar(&o.AdvertiseClientURLs, "advertise-client-urls", o.AdvertiseClientURLs, "List of this member's client URLs to advertise to the public.")
	fs.StringSliceVar(&o.ListenPeerURLs, "listen-peer-urls", o.ListenPeerURLs, "List of URLs to listen on for peer traffic.")
	fs.BoolVar(&o.UnsafeNoFsync, "unsafe-no-fsync", o.UnsafeNoFsync, "Disables fsync, unsafe, will cause data loss.")
	return cmd
}

// embedded turns the flags into the embedded server's options.
func (o *etcdOptions) embedded() (embedded.Options, error) {
	var errs []error
	parse := func(flag string, raw []string) []url.URL {
		var out []url.URL
		for _, s := range raw {
			u, err := url.Parse(s)
			if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
				errs = append(errs, fmt.Errorf("--%s %q is not an http(s) URL", flag, s))
				continue
			}
			if u.Scheme == "https" {
				errs = append(errs, fmt.Errorf("--%s %q: TLS is not implemented by kapi's etcd drop-in", flag, s))
				continue
			}
			out = append(out, *u)
		}
		return out
	}
	opts := embedded.Options{
		Dir:                 o.DataDir,
		UnsafeNoFsync:       o.UnsafeNoFsync,
		ListenClientURLs:    parse("listen-client-urls", o.ListenClientURLs),
		AdvertiseClientURLs: parse("advertise-client-urls", o.AdvertiseClientURLs),
		ListenPeerURLs:      parse("listen-peer-urls", o.ListenPeerURLs),
	}
	if opts.Dir == "" {
		opts.Dir = o.Name + ".etcd"
	}
	if len(opts.ListenClientURLs) == 0 && len(errs) == 0 {
		errs = append(errs, errors.New("--listen-client-urls must not be empty"))
	}
	return opts, errors.Join(errs...)
}
