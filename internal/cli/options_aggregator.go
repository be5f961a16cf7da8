package cli

import (
	"github.com/kapi-dev/kapi/internal/controlplane"
)

// aggregatorOptions are kube-apiserver's flags of the aggregator.
type aggregatorOptions struct {
	EnableAggregatorRouting bool
}

// defaultAggregatorOptions are `kapi serve`'s: kapi runs no service proxy,
// so a Service's cluster IP leads nowhere and the aggregator routes to
// endpoints. The kube-apiserver drop-in restores upstream's false.
func defaultAggregatorOptions() aggregatorOptions {
	return aggregatorOptions{EnableAggregatorRouting: true}
}

func (o *aggregatorOptions) addFlags(sets *namedFlagSets) {
	sets.FlagSet("aggregator").BoolVar(&o.EnableAggregatorRouting, "enable-aggregator-routing", o.EnableAggregatorRouting,
		"Turns on aggregator routing requests to endpoints IP rather than cluster IP. "+
			"kapi serve defaults it to true because kapi runs no kube-proxy: a Service's cluster IP is reachable only if a service proxy runs on kapi's host. "+
			"It also chooses the address the APIService availability checks reach.")
}

func (o *aggregatorOptions) fill(c *controlplane.Config) {
	c.DisableAggregatorRouting = !o.EnableAggregatorRouting
}
