package cli

import (
	"strings"
	"testing"
)

// TestMemoryLimitFlag: --memory-limit defaults to auto in `kapi serve` and
// in the drop-in, and a value that is not auto, off or a positive quantity
// is refused by name.
func TestMemoryLimitFlag(t *testing.T) {
	tests := []struct {
		name    string
		dropIn  bool
		args    []string
		want    string
		wantErr string
	}{
		{name: "serve default", want: "auto"},
		{name: "drop-in default", dropIn: true, want: "auto"},
		{name: "fixed", args: []string{"--memory-limit=512Mi"}, want: "512Mi"},
		{name: "off", dropIn: true, args: []string{"--memory-limit=off"}, want: "off"},
		{name: "not a quantity", args: []string{"--memory-limit=big"}, wantErr: `--memory-limit: "big" is neither auto, off nor a quantity`},
		{name: "zero", args: []string{"--memory-limit=0"}, wantErr: `--memory-limit: "0" must be a positive number of bytes`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := NewServeOptions()
			sets := &namedFlagSets{}
			if tt.dropIn {
				d := newKubeAPIServerOptions()
				d.addFlags(sets)
				opts = d.ServeOptions
			} else {
				opts.AddFlags(sets)
			}
			if err := sets.FlagSet("kapi").Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			errs := opts.memoryOptions.validate()
			if tt.wantErr != "" {
				if len(errs) != 1 || !strings.Contains(errs[0].Error(), tt.wantErr) {
					t.Errorf("errors %v, want %q", errs, tt.wantErr)
				}
				return
			}
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			if got := opts.limit.String(); got != tt.want {
				t.Errorf("limit %q, want %q", got, tt.want)
			}
		})
	}
}
