package cli

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// TestLifecycleFlags: kube-apiserver's names and defaults (all off), the
// values reaching the control plane's config, and upstream's validation.
func TestLifecycleFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		err  string
	}{
		{args: nil},
		{args: []string{"--shutdown-send-retry-after", "--shutdown-watch-termination-grace-period=30s", "--goaway-chance=0.02",
			"--cors-allowed-origins=//example\\.com(:|$),^https://a\\.org$", "--livez-grace-period=1m"}},
		{args: []string{"--goaway-chance=0.03"}, err: "--goaway-chance can not be less than 0 or greater than 0.02"},
		{args: []string{"--goaway-chance=-0.01"}, err: "--goaway-chance can not be less than 0 or greater than 0.02"},
		{args: []string{"--livez-grace-period=-1s"}, err: "--livez-grace-period can not be a negative value"},
		{args: []string{"--shutdown-watch-termination-grace-period=-1s"}, err: "shutdown-watch-termination-grace-period, if provided, can not be a negative value"},
		{args: []string{"--cors-allowed-origins=example.com"}, err: "does not pin to start/end of host"},
		{args: []string{"--cors-allowed-origins=//example.com"}, err: "does not pin to start/end of host"},
		{args: []string{"--cors-allowed-origins=^(bad$"}, err: "invalid regular expression"},
	} {
		o := NewServeOptions()
		sets := &namedFlagSets{}
		o.AddFlags(sets)
		fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
		sets.addTo(fs)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		err := errors.Join(o.lifecycleOptions.validate()...)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%v: err = %v, want %q", tt.args, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", tt.args, err)
			continue
		}
		l := o.Config().Lifecycle
		if tt.args == nil {
			if l.ShutdownSendRetryAfter || l.ShutdownWatchTerminationGracePeriod != 0 || l.GoawayChance != 0 || l.CorsAllowedOriginList != nil || l.LivezGracePeriod != 0 {
				t.Errorf("defaults %+v, want all zero as kube-apiserver", l)
			}
			continue
		}
		if !l.ShutdownSendRetryAfter || l.ShutdownWatchTerminationGracePeriod != 30*time.Second || l.GoawayChance != 0.02 ||
			!slices.Equal(l.CorsAllowedOriginList, []string{`//example\.com(:|$)`, `^https://a\.org$`}) || l.LivezGracePeriod != time.Minute {
			t.Errorf("%v: config %+v", tt.args, l)
		}
	}
}
