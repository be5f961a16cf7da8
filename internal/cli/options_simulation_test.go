package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// TestSimulationFlags: --simulated-nodes and --simulated-node-template
// reach the config, and bad values are refused naming the flag.
func TestSimulationFlags(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "node.yaml")
	if err := os.WriteFile(good, []byte("status:\n  capacity: {cpu: \"8\"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("spec: {unschedulable: true}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args  []string
		err   string
		nodes int
		cpu   string
	}{
		{args: nil},
		{args: []string{"--simulated-nodes=3"}, nodes: 3},
		{args: []string{"--simulated-nodes=3", "--simulated-node-template=" + good}, nodes: 3, cpu: "8"},
		{args: []string{"--simulated-nodes=-1"}, err: "--simulated-nodes -1 must be between 0 and 5000"},
		{args: []string{"--simulated-nodes=5001"}, err: "--simulated-nodes 5001 must be between 0 and 5000"},
		{args: []string{"--simulated-node-template=" + good}, err: "--simulated-node-template needs --simulated-nodes"},
		{args: []string{"--simulated-nodes=1", "--simulated-node-template=" + bad}, err: "--simulated-node-template " + bad + ": spec: only taints"},
		{args: []string{"--simulated-nodes=1", "--simulated-node-template=" + filepath.Join(dir, "missing")}, err: "--simulated-node-template"},
	} {
		o := NewServeOptions()
		sets := &namedFlagSets{}
		o.AddFlags(sets)
		o.simulationOptions.addFlags(sets)
		fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
		sets.addTo(fs)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		errs := o.simulationOptions.validate()
		if tt.err != "" {
			if len(errs) == 0 || !strings.Contains(errs[0].Error(), tt.err) {
				t.Errorf("%v: errors %v, want %q", tt.args, errs, tt.err)
			}
			continue
		}
		if len(errs) > 0 {
			t.Errorf("%v: %v", tt.args, errs)
			continue
		}
		c := o.Config()
		if c.SimulatedNodes != tt.nodes {
			t.Errorf("%v: SimulatedNodes = %d", tt.args, c.SimulatedNodes)
		}
		if tt.cpu != "" {
			if got := c.SimulatedNodeTemplate.Status.Capacity[corev1.ResourceCPU]; got.Cmp(resource.MustParse(tt.cpu)) != 0 {
				t.Errorf("%v: template cpu = %s", tt.args, got.String())
			}
		}
	}
}

// TestDropInHasNoSimulatedNodes: kube-apiserver has no such flag, so the
// drop-in refuses it.
func TestDropInHasNoSimulatedNodes(t *testing.T) {
	cmd := NewKubeAPIServerCommand()
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	cmd.SetArgs([]string{"--simulated-nodes=3"})
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "simulated-nodes") {
		t.Fatalf("got %v, want the flag refused", err)
	}
}
