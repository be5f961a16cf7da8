package cli

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestPriorityAndFairnessFlag checks kube-apiserver's
// --enable-priority-and-fairness: on by default (in kapi serve and the
// drop-in alike), off on request, and refused when the in-flight limits,
// which size it, add up to nothing.
func TestPriorityAndFairnessFlag(t *testing.T) {
	tests := []struct {
		args        []string
		wantDisable bool
		wantErr     string
	}{
		{nil, false, ""},
		{[]string{"--enable-priority-and-fairness"}, false, ""},
		{[]string{"--enable-priority-and-fairness=false"}, true, ""},
		{[]string{"--enable-priority-and-fairness=false", "--max-requests-inflight=0", "--max-mutating-requests-inflight=0"}, true, ""},
		{[]string{"--max-requests-inflight=0", "--max-mutating-requests-inflight=0"}, false, "must be positive"},
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
		if got := fs.Lookup("enable-priority-and-fairness").DefValue; got != "true" {
			t.Errorf("default %q, want true", got)
		}
		errs := o.flowControlOptions.validate(o.MaxRequestsInFlight, o.MaxMutatingRequestsInFlight)
		if tt.wantErr != "" {
			if len(errs) == 0 || !strings.Contains(errs[0].Error(), tt.wantErr) {
				t.Errorf("%v: errors %v, want %q", tt.args, errs, tt.wantErr)
			}
			continue
		}
		if len(errs) > 0 {
			t.Errorf("%v: %v", tt.args, errs)
		}
		if got := o.Config().DisablePriorityAndFairness; got != tt.wantDisable {
			t.Errorf("%v: DisablePriorityAndFairness %v, want %v", tt.args, got, tt.wantDisable)
		}
	}
	o, _, err := parseKubeAPIServer(t, []string{"--cert-dir=" + t.TempDir(), "--enable-priority-and-fairness=false"})
	if err != nil {
		t.Fatal(err)
	}
	if !o.DisablePriorityAndFairness {
		t.Error("drop-in: --enable-priority-and-fairness=false ignored")
	}
}
