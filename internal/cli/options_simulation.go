package cli

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/kapi-dev/kapi/internal/controlplane"
	"github.com/kapi-dev/kapi/internal/simulator/nodes"
)

// simulationOptions are kapi's own flags for simulated nodes. `kapi serve`
// has them; the kube-apiserver drop-in does not (upstream has no such
// flag), so they are registered by the serve command, not by AddFlags.
type simulationOptions struct {
	SimulatedNodes        int
	SimulatedNodeTemplate string

	// template is the parsed --simulated-node-template, set by validate.
	template *corev1.Node
}

func (o *simulationOptions) addFlags(sets *namedFlagSets) {
	fs := sets.FlagSet("simulation")
	fs.IntVar(&o.SimulatedNodes, "simulated-nodes", o.SimulatedNodes, fmt.Sprintf("Number of kubelets kapi simulates: Nodes %s0..%sN-1 (labelled %s=true, zones %v, pod CIDR 10.64.<i>.0/24), their kube-node-lease Leases and status heartbeats at kubelet's intervals, and the lifecycle of the Pods bound to them (IPs, Running and Ready, Jobs' Pods completing after the %s annotation's run time, graceful deletion). At most %d; 0 simulates none.", nodes.NamePrefix, nodes.NamePrefix, nodes.SimulatedLabel, nodes.Zones, "kapi.dev/simulated-run-time", nodes.MaxNodes))
	fs.StringVar(&o.SimulatedNodeTemplate, "simulated-node-template", o.SimulatedNodeTemplate, "A Node in YAML or JSON whose metadata.labels, metadata.annotations, spec.taints, status.capacity and status.allocatable every simulated node copies; other fields are refused. Resources it leaves out keep the defaults: cpu 32, memory 256Gi, pods 110, ephemeral-storage 100Gi.")
}

func (o *simulationOptions) validate() []error {
	var errs []error
	if o.SimulatedNodes < 0 || o.SimulatedNodes > nodes.MaxNodes {
		errs = append(errs, fmt.Errorf("--simulated-nodes %d must be between 0 and %d", o.SimulatedNodes, nodes.MaxNodes))
	}
	if o.SimulatedNodeTemplate == "" {
		return errs
	}
	if o.SimulatedNodes == 0 {
		errs = append(errs, fmt.Errorf("--simulated-node-template needs --simulated-nodes"))
	}
	tmpl, err := nodes.LoadTemplate(o.SimulatedNodeTemplate)
	if err != nil {
		return append(errs, fmt.Errorf("--simulated-node-template %s: %w", o.SimulatedNodeTemplate, err))
	}
	o.template = tmpl
	return errs
}

func (o *simulationOptions) fill(c *controlplane.Config) {
	c.SimulatedNodes = o.SimulatedNodes
	c.SimulatedNodeTemplate = o.template
}
