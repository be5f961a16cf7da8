package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/kapi-dev/kapi/internal/controlplane"
)

// controllerOptions select and configure the in-process controllers,
// named as kube-controller-manager names them.
type controllerOptions struct {
	Controllers            []string
	ClusterSigningCertFile string
	ClusterSigningKeyFile  string
	ClusterSigningDuration time.Duration

	LeaderElect                  bool
	LeaderElectLeaseDuration     time.Duration
	LeaderElectRenewDeadline     time.Duration
	LeaderElectRetryPeriod       time.Duration
	LeaderElectResourceLock      string
	LeaderElectResourceNamespace string
	LeaderElectResourceName      string
	TerminatedPodGCThreshold     int
	HPASyncPeriod                time.Duration
}

func defaultControllerOptions() controllerOptions {
	return controllerOptions{
		Controllers: []string{"*"}, ClusterSigningDuration: 365 * 24 * time.Hour,
		// kube-controller-manager's defaults.
		LeaderElect:                  true,
		LeaderElectLeaseDuration:     controlplane.DefaultLeaseDuration,
		LeaderElectRenewDeadline:     controlplane.DefaultRenewDeadline,
		LeaderElectRetryPeriod:       controlplane.DefaultRetryPeriod,
		LeaderElectResourceLock:      "leases",
		LeaderElectResourceNamespace: controlplane.DefaultLeaderElectNamespace,
		LeaderElectResourceName:      controlplane.DefaultLeaderElectLeaseName,
		TerminatedPodGCThreshold:     12500,
		HPASyncPeriod:                15 * time.Second,
	}
}

func (o *controllerOptions) addFlags(sets *namedFlagSets) {
	fs := sets.FlagSet("controllers")
	fs.StringSliceVar(&o.Controllers, "controllers", o.Controllers, "A list of controllers to enable, as kube-controller-manager's flag: '*' enables all on-by-default controllers, 'foo' enables the controller named 'foo', '-foo' disables the controller named 'foo'; an empty list (--controllers=) runs none. kube-controller-manager's short names (e.g. serviceaccount, csrsigning) are accepted too. kapi runs: "+strings.Join(controlplane.ControllerNames(), ", ")+".")
	fs.StringVar(&o.ClusterSigningCertFile, "cluster-signing-cert-file", o.ClusterSigningCertFile, "Filename containing a PEM-encoded X509 CA certificate used to issue certificates for the kubernetes.io/kube-apiserver-client, kubernetes.io/kube-apiserver-client-kubelet and kubernetes.io/kubelet-serving signers. Empty uses kapi's own CA.")
	fs.StringVar(&o.ClusterSigningKeyFile, "cluster-signing-key-file", o.ClusterSigningKeyFile, "Filename containing a PEM-encoded RSA or ECDSA private key used to sign certificates with --cluster-signing-cert-file.")
	fs.DurationVar(&o.ClusterSigningDuration, "cluster-signing-duration", o.ClusterSigningDuration, "The max length of duration signed certificates will be given. Individual CSRs may request shorter certs by setting spec.expirationSeconds.")
	fs.DurationVar(&o.HPASyncPeriod, "horizontal-pod-autoscaler-sync-period", o.HPASyncPeriod, "The period for syncing the number of pods in horizontal pod autoscaler.")
	fs.IntVar(&o.TerminatedPodGCThreshold, "terminated-pod-gc-threshold", o.TerminatedPodGCThreshold, "Number of terminated pods that can exist before the pod garbage collector starts deleting terminated pods. If <= 0, the terminated pod garbage collector is disabled.")

	le := sets.FlagSet("leader election")
	le.BoolVar(&o.LeaderElect, "leader-elect", o.LeaderElect, "Run the in-process controllers only while holding kube-controller-manager's leader-election Lease, so that several kapi servers on one etcd, or kapi and a kube-controller-manager, take turns. A server waiting for the lease still serves the API and is ready. No lease is taken when no controller is enabled.")
	le.DurationVar(&o.LeaderElectLeaseDuration, "leader-elect-lease-duration", o.LeaderElectLeaseDuration, "How long a candidate waits after the leader's last renewal before it may take an unrenewed lease: the longest a stopped leader goes unreplaced.")
	le.DurationVar(&o.LeaderElectRenewDeadline, "leader-elect-renew-deadline", o.LeaderElectRenewDeadline, "How long the leader keeps retrying to renew the lease before it stops its controllers. Must be less than the lease duration.")
	le.DurationVar(&o.LeaderElectRetryPeriod, "leader-elect-retry-period", o.LeaderElectRetryPeriod, "How long a candidate waits between attempts to acquire or renew the lease.")
	le.StringVar(&o.LeaderElectResourceLock, "leader-elect-resource-lock", o.LeaderElectResourceLock, "The kind of object the lease is held in; only 'leases' (coordination.k8s.io), as upstream.")
	le.StringVar(&o.LeaderElectResourceNamespace, "leader-elect-resource-namespace", o.LeaderElectResourceNamespace, "The namespace of the Lease.")
	le.StringVar(&o.LeaderElectResourceName, "leader-elect-resource-name", o.LeaderElectResourceName, "The name of the Lease; kube-controller-manager's by default, so that one and kapi take turns.")
}

func (o *controllerOptions) validate() []error {
	var errs []error
	if err := controlplane.ValidateControllers(o.Controllers); err != nil {
		errs = append(errs, err)
	}
	if (o.ClusterSigningCertFile == "") != (o.ClusterSigningKeyFile == "") {
		errs = append(errs, fmt.Errorf("--cluster-signing-cert-file and --cluster-signing-key-file must be given together"))
	}
	if o.LeaderElectResourceLock != "leases" {
		errs = append(errs, fmt.Errorf("--leader-elect-resource-lock %q is not supported: only \"leases\"", o.LeaderElectResourceLock))
	}
	if o.LeaderElect {
		if err := o.leaderElection().Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	if o.HPASyncPeriod <= 0 {
		errs = append(errs, fmt.Errorf("--horizontal-pod-autoscaler-sync-period %v must be positive", o.HPASyncPeriod))
	}
	if o.ClusterSigningDuration <= 0 {
		errs = append(errs, fmt.Errorf("--cluster-signing-duration %v must be positive", o.ClusterSigningDuration))
	}
	return errs
}

func (o *controllerOptions) fill(c *controlplane.Config) {
	// Never nil: an empty --controllers means none, not the default.
	c.Controllers = append([]string{}, o.Controllers...)
	c.ClusterSigningCertFile, c.ClusterSigningKeyFile = o.ClusterSigningCertFile, o.ClusterSigningKeyFile
	c.ClusterSigningDuration = o.ClusterSigningDuration
	c.LeaderElection = o.leaderElection()
	c.TerminatedPodGCThreshold = o.TerminatedPodGCThreshold
	c.HorizontalPodAutoscalerSyncPeriod = o.HPASyncPeriod
}

func (o *controllerOptions) leaderElection() controlplane.LeaderElectionConfig {
	return controlplane.LeaderElectionConfig{
		LeaderElect:   o.LeaderElect,
		LeaseDuration: o.LeaderElectLeaseDuration, RenewDeadline: o.LeaderElectRenewDeadline, RetryPeriod: o.LeaderElectRetryPeriod,
		ResourceNamespace: o.LeaderElectResourceNamespace, ResourceName: o.LeaderElectResourceName,
	}
}
