// Package csrsigning issues the certificates of approved
// CertificateSigningRequests for the built-in signers
// kubernetes.io/kube-apiserver-client, kubernetes.io/kube-apiserver-client-
// kubelet and kubernetes.io/kubelet-serving, as kube-controller-manager's
// certificatesigningrequest-signing controller does with
// --cluster-signing-cert-file/--cluster-signing-key-file.
// kubernetes.io/legacy-unknown is not signed (upstream signs it only when
// asked to, and kapi does not offer that).
package csrsigning

import (
	"context"
	"crypto/x509"
	"fmt"
	"log/slog"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	certinformers "k8s.io/client-go/informers/certificates/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/clock"

	"github.com/kapi-dev/kapi/internal/controllers/certificates"
)

// signerChecks are the signers kapi signs for and each one's check of a
// request: an error fails the CSR.
var signerChecks = map[string]func(*x509.CertificateRequest, []certificatesv1.KeyUsage) error{
	certificatesv1.KubeAPIServerClientSignerName: func(_ *x509.CertificateRequest, usages []certificatesv1.KeyUsage) error {
		return certificates.ValidateAPIServerClientUsages(usages)
	},
	certificatesv1.KubeAPIServerClientKubeletSignerName: certificates.ValidateKubeletClientCSR,
	certificatesv1.KubeletServingSignerName:             certificates.ValidateKubeletServingCSR,
}

// Controller signs approved requests of the built-in signers.
type Controller struct {
	client kubernetes.Interface
	ca     *CA
	csrs   *certificates.Queue
	clock  clock.PassiveClock
	logger *slog.Logger
}

// New returns the signer over the shared CSR informer.
func New(client kubernetes.Interface, csrs certinformers.CertificateSigningRequestInformer, ca *CA, clk clock.PassiveClock, logger *slog.Logger) (*Controller, error) {
	q, err := certificates.NewQueue(csrs, func(csr *certificatesv1.CertificateSigningRequest) bool {
		_, ours := signerChecks[csr.Spec.SignerName]
		return ours
	})
	if err != nil {
		return nil, err
	}
	return &Controller{client: client, ca: ca, csrs: q, clock: clk, logger: logger}, nil
}

// Run waits for the cache, then signs with workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	c.csrs.Run(ctx, workers, c.logger, c.sync)
}

func (c *Controller) sync(ctx context.Context, name string) error {
	cached, err := c.csrs.Cached(name)
	if cached == nil || err != nil {
		return err
	}
	check, ours := signerChecks[cached.Spec.SignerName]
	if !ours || len(cached.Status.Certificate) > 0 || !certificates.IsApproved(cached) ||
		certificates.HasTrueCondition(cached, certificatesv1.CertificateFailed) {
		return nil
	}
	req, err := certificates.ParseCSR(cached.Spec.Request)
	if err != nil {
		return fmt.Errorf("unable to parse csr %q: %v", name, err)
	}
	csr := cached.DeepCopy()
	if err := check(req, csr.Spec.Usages); err != nil {
		csr.Status.Conditions = append(csr.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{
			Type: certificatesv1.CertificateFailed, Status: corev1.ConditionTrue,
			Reason: "SignerValidationFailure", Message: err.Error(),
			LastUpdateTime: metav1.NewTime(c.clock.Now()),
		})
		return c.updateStatus(ctx, csr)
	}
	certPEM, err := c.ca.Sign(req, csr.Spec.Usages, Duration(c.ca.Duration, csr.Spec.ExpirationSeconds), c.clock.Now())
	if err != nil {
		return fmt.Errorf("error auto signing csr: %v", err)
	}
	csr.Status.Certificate = certPEM
	return c.updateStatus(ctx, csr)
}

func (c *Controller) updateStatus(ctx context.Context, csr *certificatesv1.CertificateSigningRequest) error {
	_, err := c.client.CertificatesV1().CertificateSigningRequests().UpdateStatus(ctx, csr, metav1.UpdateOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("error updating signature for csr: %v", err)
	}
	return nil
}
