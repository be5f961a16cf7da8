package cli

import (
	"testing"

	"github.com/spf13/pflag"
)

// TestEnableAggregatorRouting pins --enable-aggregator-routing: `kapi
// serve` routes to endpoints by default (no kube-proxy), the
// kube-apiserver drop-in keeps upstream's default false (cluster IP),
// and either can be switched.
func TestEnableAggregatorRouting(t *testing.T) {
	tests := []struct {
		name        string
		dropIn      bool
		args        []string
		wantDisable bool
	}{
		{name: "serve default", wantDisable: false},
		{name: "serve off", args: []string{"--enable-aggregator-routing=false"}, wantDisable: true},
		{name: "drop-in default", dropIn: true, wantDisable: true},
		{name: "drop-in on", dropIn: true, args: []string{"--enable-aggregator-routing"}, wantDisable: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.dropIn {
				o, _, err := parseKubeAPIServer(t, tt.args)
				if err != nil {
					t.Fatal(err)
				}
				if got := o.Config().DisableAggregatorRouting; got != tt.wantDisable {
					t.Errorf("DisableAggregatorRouting = %v, want %v", got, tt.wantDisable)
				}
				return
			}
			o := NewServeOptions()
			sets := &namedFlagSets{}
			o.AddFlags(sets)
			fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
			sets.addTo(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			if got := o.Config().DisableAggregatorRouting; got != tt.wantDisable {
				t.Errorf("DisableAggregatorRouting = %v, want %v", got, tt.wantDisable)
			}
		})
	}
}
