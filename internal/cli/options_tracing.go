package cli

import (
	"fmt"

	"github.com/kapi-dev/kapi/internal/controlplane"
	"github.com/kapi-dev/kapi/internal/server/tracing"
)

// tracingOptions is kube-apiserver's --tracing-config-file. validate
// reads the file, so that a missing or invalid one stops kapi before
// anything starts, and keeps what it read for fill.
type tracingOptions struct {
	TracingConfigFile string

	tracing *tracing.Config
}

func (o *tracingOptions) addFlags(sets *namedFlagSets) {
	sets.FlagSet("traces").StringVar(&o.TracingConfigFile, "tracing-config-file", o.TracingConfigFile, "File with apiserver tracing configuration: a TracingConfiguration of apiserver.config.k8s.io/v1 (or v1beta1, v1alpha1) naming the OTLP gRPC collector (endpoint, default localhost:4317) and the samplingRatePerMillion of requests not already sampled by a privileged caller (default 0). Empty turns tracing off.")
}

// validate loads the file; its errors name the flag, the file and, for
// invalid content, the field.
func (o *tracingOptions) validate() []error {
	o.tracing = nil
	if o.TracingConfigFile == "" {
		return nil
	}
	c, err := tracing.Load(o.TracingConfigFile)
	if err != nil {
		return []error{fmt.Errorf("--tracing-config-file: %w", err)}
	}
	o.tracing = c
	return nil
}

func (o *tracingOptions) fill(c *controlplane.Config) {
	c.Tracing = o.tracing
}
