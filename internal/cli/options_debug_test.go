package cli

import (
	"strings"
	"testing"
)

// TestDebugFlags: kube-apiserver's names and defaults (profiling on,
// contention profiling off) in `kapi serve` and in the drop-in, and
// --contention-profiling refused without --profiling.
func TestDebugFlags(t *testing.T) {
	tests := []struct {
		name         string
		dropIn       bool
		args         []string
		wantDisabled bool
		wantBlock    bool
		wantErr      string
	}{
		{name: "serve defaults"},
		{name: "drop-in defaults", dropIn: true},
		{name: "off", args: []string{"--profiling=false"}, wantDisabled: true},
		{name: "contention", args: []string{"--contention-profiling"}, wantBlock: true},
		{name: "contention without profiling", dropIn: true, args: []string{"--profiling=false", "--contention-profiling"}, wantErr: "--contention-profiling needs --profiling"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &NewServeOptions().debugOptions
			sets := &namedFlagSets{}
			if tt.dropIn {
				d := newKubeAPIServerOptions()
				d.addFlags(sets)
				o = &d.debugOptions
			} else {
				o.addFlags(sets)
			}
			fs := sets.FlagSet("features")
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			errs := o.validate()
			if tt.wantErr != "" {
				if len(errs) != 1 || !strings.Contains(errs[0].Error(), tt.wantErr) {
					t.Errorf("errors %v, want %q", errs, tt.wantErr)
				}
				return
			}
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			opts := NewServeOptions()
			opts.debugOptions = *o
			c := opts.Config()
			if c.DisableProfiling != tt.wantDisabled || c.ContentionProfiling != tt.wantBlock {
				t.Errorf("DisableProfiling=%v ContentionProfiling=%v, want %v %v", c.DisableProfiling, c.ContentionProfiling, tt.wantDisabled, tt.wantBlock)
			}
		})
	}
}
