package scheduler

// code is how a filter rejected a node, as upstream's framework codes.
type code int

const (
	// unschedulable: another pod leaving (preemption) could help.
	unschedulable code = iota + 1
	// unresolvable: nothing but a change of the node or the pod helps.
	unresolvable
)

// status is a filter's rejection of one node; nil means the node fits.
type status struct {
	code    code
	reasons []string
}

func reject(c code, reasons ...string) *status { return &status{code: c, reasons: reasons} }

// Upstream's per-plugin reasons, which the FailedScheduling message
// counts node by node.
const (
	reasonUnschedulable          = "node(s) were unschedulable"
	reasonNodeAffinity           = "node(s) didn't match Pod's node affinity/selector"
	reasonTaints                 = "node(s) had untolerated taint(s)"
	reasonPorts                  = "node(s) didn't have free ports for the requested pod ports"
	reasonTooManyPods            = "Too many pods"
	reasonPodAffinity            = "node(s) didn't match pod affinity rules"
	reasonPodAntiAffinity        = "node(s) didn't match pod anti-affinity rules"
	reasonExistingAntiAffinity   = "node(s) didn't satisfy existing pods anti-affinity rules"
	reasonSpread                 = "node(s) didn't match pod topology spread constraints"
	reasonSpreadMissingLabel     = "node(s) didn't match pod topology spread constraints (missing required label)"
	reasonPreemptionNotHelpful   = "Preemption is not helpful for scheduling"
	reasonNoPreemptionVictims    = "No preemption victims found for incoming pod"
	messageNoNodes               = "no nodes available to schedule pods"
	messagePreemptionPolicyNever = "not eligible due to preemptionPolicy=Never."
)

// insufficient is NodeResourcesFit's reason for one resource.
func insufficient(name string) string { return "Insufficient " + name }
