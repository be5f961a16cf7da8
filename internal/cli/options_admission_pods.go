package cli

import (
	"github.com/kapi-dev/kapi/internal/admission/plugins/defaulttolerationseconds"
	"github.com/kapi-dev/kapi/internal/controlplane"
)

// podAdmissionOptions are the flags of the pod admission plugins, named
// as kube-apiserver registers them.
type podAdmissionOptions struct {
	DefaultNotReadyTolerationSeconds    int64
	DefaultUnreachableTolerationSeconds int64
}

func defaultPodAdmissionOptions() podAdmissionOptions {
	return podAdmissionOptions{
		DefaultNotReadyTolerationSeconds:    defaulttolerationseconds.DefaultSeconds,
		DefaultUnreachableTolerationSeconds: defaulttolerationseconds.DefaultSeconds,
	}
}

func (o *podAdmissionOptions) addFlags(sets *namedFlagSets) {
	fs := sets.FlagSet("admission")
	fs.Int64Var(&o.DefaultNotReadyTolerationSeconds, "default-not-ready-toleration-seconds", o.DefaultNotReadyTolerationSeconds,
		"Indicates the tolerationSeconds of the toleration for notReady:NoExecute that is added by default to every pod that does not already have such a toleration.")
	fs.Int64Var(&o.DefaultUnreachableTolerationSeconds, "default-unreachable-toleration-seconds", o.DefaultUnreachableTolerationSeconds,
		"Indicates the tolerationSeconds of the toleration for unreachable:NoExecute that is added by default to every pod that does not already have such a toleration.")
}

func (o *podAdmissionOptions) fill(c *controlplane.Config) {
	notReady, unreachable := o.DefaultNotReadyTolerationSeconds, o.DefaultUnreachableTolerationSeconds
	c.PodAdmission.DefaultNotReadyTolerationSeconds = &notReady
	c.PodAdmission.DefaultUnreachableTolerationSeconds = &unreachable
}
