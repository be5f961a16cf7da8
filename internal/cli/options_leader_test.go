package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/kapi-dev/kapi/internal/controlplane"
)

// TestLeaderElectionFlags checks the wiring of kube-controller-manager's
// --leader-elect* and --terminated-pod-gc-threshold: upstream's defaults
// reach the config, values are passed through, and what the elector
// would refuse, or a lock kind kapi does not hold, is refused.
func TestLeaderElectionFlags(t *testing.T) {
	tests := []struct {
		args      []string
		want      controlplane.LeaderElectionConfig
		threshold int
		wantErr   string
	}{
		{nil, controlplane.LeaderElectionConfig{LeaderElect: true, LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second,
			RetryPeriod: 2 * time.Second, ResourceNamespace: "kube-system", ResourceName: "kube-controller-manager"}, 12500, ""},
		{[]string{"--leader-elect=false", "--terminated-pod-gc-threshold=0"}, controlplane.LeaderElectionConfig{LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second,
			RetryPeriod: 2 * time.Second, ResourceNamespace: "kube-system", ResourceName: "kube-controller-manager"}, 0, ""},
		{[]string{"--leader-elect-lease-duration=30s", "--leader-elect-renew-deadline=20s", "--leader-elect-retry-period=5s",
			"--leader-elect-resource-namespace=ops", "--leader-elect-resource-name=kapi"}, controlplane.LeaderElectionConfig{LeaderElect: true,
			LeaseDuration: 30 * time.Second, RenewDeadline: 20 * time.Second, RetryPeriod: 5 * time.Second, ResourceNamespace: "ops", ResourceName: "kapi"}, 12500, ""},
		{[]string{"--leader-elect-renew-deadline=15s"}, controlplane.LeaderElectionConfig{}, 0, "must be greater than --leader-elect-renew-deadline"},
		{[]string{"--leader-elect-resource-lock=endpoints"}, controlplane.LeaderElectionConfig{}, 0, `--leader-elect-resource-lock "endpoints" is not supported`},
	}
	for _, tt := range tests {
		o := NewServeOptions()
		sets := &namedFlagSets{}
		o.AddFlags(sets)
		fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
		sets.addTo(fs)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		errs := o.controllerOptions.validate()
		if tt.wantErr != "" {
			if len(errs) == 0 || !strings.Contains(errs[0].Error(), tt.wantErr) {
				t.Errorf("%v: errors %v, want %q", tt.args, errs, tt.wantErr)
			}
			continue
		}
		if len(errs) > 0 {
			t.Errorf("%v: %v", tt.args, errs)
		}
		c := o.Config()
		if c.LeaderElection != tt.want {
			t.Errorf("%v: leader election %+v, want %+v", tt.args, c.LeaderElection, tt.want)
		}
		if c.TerminatedPodGCThreshold != tt.threshold {
			t.Errorf("%v: threshold %d, want %d", tt.args, c.TerminatedPodGCThreshold, tt.threshold)
		}
	}
}
