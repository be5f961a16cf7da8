package kapitest

// WithSimulatedNodes simulates n kubelets, as `kapi serve
// --simulated-nodes=n`: Start returns once Nodes kapi-node-0 to
// kapi-node-<n-1> are registered, Ready and without the not-ready taint,
// with the default capacity (32 CPUs, 256Gi of memory, 110 pods). Pods
// bound to them (spec.nodeName or pods/binding) get an IP and become
// Running and Ready; Pods whose restartPolicy is Never or OnFailure
// succeed after the run time of their kapi.dev/simulated-run-time
// annotation (1s by default), with the exit code of
// kapi.dev/simulated-exit-code; graceful deletions complete. n must be
// between 0 and 5000.
func WithSimulatedNodes(n int) Option { return func(o *options) { o.simulatedNodes = n } }
