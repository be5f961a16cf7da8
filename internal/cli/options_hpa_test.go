package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// TestHPASyncPeriodFlag checks kube-controller-manager's
// --horizontal-pod-autoscaler-sync-period: 15s by default, passed
// through, and a period that is not positive refused.
func TestHPASyncPeriodFlag(t *testing.T) {
	tests := []struct {
		args    []string
		want    time.Duration
		wantErr string
	}{
		{nil, 15 * time.Second, ""},
		{[]string{"--horizontal-pod-autoscaler-sync-period=1m"}, time.Minute, ""},
		{[]string{"--horizontal-pod-autoscaler-sync-period=0s"}, 0, "must be positive"},
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
		if got := o.Config().HorizontalPodAutoscalerSyncPeriod; got != tt.want {
			t.Errorf("%v: sync period %v, want %v", tt.args, got, tt.want)
		}
	}
}
