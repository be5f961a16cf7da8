package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/kapi-dev/kapi/internal/server/tracing"
)

// TestTracingFlag: --tracing-config-file is in the traces section of
// `kapi serve` and of the drop-in kube-apiserver; Validate reads the
// file, its errors naming the flag, the file and the field; the
// config carries what the file says, with upstream's defaults, and
// nothing without the flag.
func TestTracingFlag(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	full := write("full.yaml", "apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nendpoint: collector:4317\nsamplingRatePerMillion: 100\n")
	empty := write("empty.yaml", "apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\n")
	bad := write("bad.yaml", "apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nsamplingRatePerMillion: 2000000\n")
	missing := filepath.Join(dir, "missing.yaml")

	for _, tt := range []struct {
		name    string
		dropIn  bool
		args    []string
		want    *tracing.Config
		wantErr []string
	}{
		{name: "off by default"},
		{name: "off by default in the drop-in", dropIn: true},
		{name: "a full file", args: []string{"--tracing-config-file=" + full}, want: &tracing.Config{Endpoint: "collector:4317", SamplingRatePerMillion: 100}},
		{name: "defaults in the drop-in", dropIn: true, args: []string{"--tracing-config-file", empty}, want: &tracing.Config{Endpoint: "localhost:4317"}},
		{name: "missing file", args: []string{"--tracing-config-file=" + missing},
			wantErr: []string{"--tracing-config-file: unable to read tracing configuration from", missing}},
		{name: "invalid field", dropIn: true, args: []string{"--tracing-config-file=" + bad},
			wantErr: []string{"--tracing-config-file: failed to validate tracing configuration", bad, "samplingRatePerMillion: Invalid value: 2000000"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := NewServeOptions()
			sets := &namedFlagSets{}
			if tt.dropIn {
				d := newKubeAPIServerOptions()
				d.addFlags(sets)
				o = d.ServeOptions
			} else {
				o.AddFlags(sets)
			}
			fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
			sets.addTo(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			if sets.FlagSet("traces").Lookup("tracing-config-file") == nil {
				t.Fatal("--tracing-config-file is not in the traces section")
			}
			if err := o.Complete(); err != nil {
				t.Fatal(err)
			}
			err := o.Validate()
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("Validate succeeded, want an error with %q", tt.wantErr)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not mention %q", err, w)
					}
				}
				return
			}
			// The drop-in's own defaults (no --data-dir before its
			// complete) fail elsewhere; only tracing matters here.
			if err != nil && (!tt.dropIn || strings.Contains(err.Error(), "tracing")) {
				t.Fatalf("Validate: %v", err)
			}
			got := o.Config().Tracing
			switch {
			case tt.want == nil && got != nil:
				t.Errorf("Tracing = %+v, want nil", *got)
			case tt.want != nil && (got == nil || *got != *tt.want):
				t.Errorf("Tracing = %+v, want %+v", got, *tt.want)
			}
		})
	}
}
