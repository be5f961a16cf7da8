// Package csrcleaner deletes CertificateSigningRequests that have served
// their purpose, as kube-controller-manager's
// certificatesigningrequest-cleaner controller does, every hour: issued
// or denied or failed ones an hour after that happened, pending ones
// after a day, and any whose certificate has expired.
package csrcleaner

import (
	"context"
	"log/slog"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	certinformers "k8s.io/client-go/informers/certificates/v1"
	"k8s.io/client-go/kubernetes"
	certlisters "k8s.io/client-go/listers/certificates/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/kapi-dev/kapi/internal/pki"
)

// Upstream's ages.
const (
	PollingInterval    = time.Hour
	ApprovedExpiration = time.Hour
	DeniedExpiration   = time.Hour
	PendingExpiration  = 24 * time.Hour
)

// Controller deletes old requests.
type Controller struct {
	client kubernetes.Interface
	lister certlisters.CertificateSigningRequestLister
	synced cache.InformerSynced
	clock  clock.PassiveClock
	logger *slog.Logger
}

// New returns the cleaner over the shared CSR informer.
func New(client kubernetes.Interface, csrs certinformers.CertificateSigningRequestInformer, clk clock.PassiveClock, logger *slog.Logger) *Controller {
	return &Controller{client: client, lister: csrs.Lister(), synced: csrs.Informer().HasSynced, clock: clk, logger: logger}
}

// Run cleans every PollingInterval until ctx ends.
func (c *Controller) Run(ctx context.Context) {
	if !cache.WaitForCacheSync(ctx.Done(), c.synced) {
		return
	}
	wait.UntilWithContext(ctx, c.Clean, PollingInterval)
}

// Clean deletes every request past its time.
func (c *Controller) Clean(ctx context.Context) {
	csrs, err := c.lister.List(labels.Everything())
	if err != nil {
		c.logger.Error("listing certificate signing requests", "err", err)
		return
	}
	now := c.clock.Now()
	for _, csr := range csrs {
		if !Expired(csr, now) {
			continue
		}
		err := c.client.CertificatesV1().CertificateSigningRequests().Delete(ctx, csr.Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			c.logger.Error("deleting a certificate signing request", "name", csr.Name, "err", err)
		}
	}
}

// Expired reports whether csr is due for deletion at now.
func Expired(csr *certificatesv1.CertificateSigningRequest, now time.Time) bool {
	return issuedExpired(csr, now) ||
		pastDeadline(csr, certificatesv1.CertificateDenied, DeniedExpiration, now) ||
		pastDeadline(csr, certificatesv1.CertificateFailed, DeniedExpiration, now) ||
		(len(csr.Status.Certificate) > 0 && pastDeadline(csr, certificatesv1.CertificateApproved, ApprovedExpiration, now)) ||
		pendingPastDeadline(csr, now)
}

// pastDeadline: condition typ became true more than age ago.
func pastDeadline(csr *certificatesv1.CertificateSigningRequest, typ certificatesv1.RequestConditionType, age time.Duration, now time.Time) bool {
	for _, c := range csr.Status.Conditions {
		if c.Type == typ && now.After(c.LastUpdateTime.Add(age)) {
			return true
		}
	}
	return false
}

// pendingPastDeadline: no condition at all (what kubectl shows as
// Pending) for more than a day.
func pendingPastDeadline(csr *certificatesv1.CertificateSigningRequest, now time.Time) bool {
	return len(csr.Status.Conditions) == 0 && now.After(csr.CreationTimestamp.Add(PendingExpiration))
}

// issuedExpired: the issued certificate is no longer valid.
func issuedExpired(csr *certificatesv1.CertificateSigningRequest, now time.Time) bool {
	if len(csr.Status.Certificate) == 0 {
		return false
	}
	certs, err := pki.ParseCertsPEM(csr.Status.Certificate)
	if err != nil || len(certs) == 0 {
		return false
	}
	return now.After(certs[0].NotAfter)
}
