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
}

func defaultControllerOptions() controllerOptions {
	return controllerOptions{Controllers: []string{"*"}, ClusterSigningDuration: 365 * 24 * time.Hour}
}

func (o *controllerOptions) addFlags(sets *namedFlagSets) {
	fs := sets.FlagSet("controllers")
	fs.StringSliceVar(&o.Controllers, "controllers", o.Controllers, "A list of controllers to enable, as kube-controller-manager's flag: '*' enables all on-by-default controllers, 'foo' enables the controller named 'foo', '-foo' disables the controller named 'foo'; an empty list (--controllers=) runs none. kube-controller-manager's short names (e.g. serviceaccount, csrsigning) are accepted too. kapi runs: "+strings.Join(controlplane.ControllerNames(), ", ")+".")
	fs.StringVar(&o.ClusterSigningCertFile, "cluster-signing-cert-file", o.ClusterSigningCertFile, "Filename containing a PEM-encoded X509 CA certificate used to issue certificates for the kubernetes.io/kube-apiserver-client, kubernetes.io/kube-apiserver-client-kubelet and kubernetes.io/kubelet-serving signers. Empty uses kapi's own CA.")
	fs.StringVar(&o.ClusterSigningKeyFile, "cluster-signing-key-file", o.ClusterSigningKeyFile, "Filename containing a PEM-encoded RSA or ECDSA private key used to sign certificates with --cluster-signing-cert-file.")
	fs.DurationVar(&o.ClusterSigningDuration, "cluster-signing-duration", o.ClusterSigningDuration, "The max length of duration signed certificates will be given. Individual CSRs may request shorter certs by setting spec.expirationSeconds.")
}

func (o *controllerOptions) validate() []error {
	var errs []error
	if err := controlplane.ValidateControllers(o.Controllers); err != nil {
		errs = append(errs, err)
	}
	if (o.ClusterSigningCertFile == "") != (o.ClusterSigningKeyFile == "") {
		errs = append(errs, fmt.Errorf("--cluster-signing-cert-file and --cluster-signing-key-file must be given together"))
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
}
