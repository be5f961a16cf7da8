// Package csrapproving approves the client-certificate requests kubelets
// make, as kube-controller-manager's certificatesigningrequest-approving
// controller does: a kubernetes.io/kube-apiserver-client-kubelet request
// shaped as a node's (system:nodes, CN system:node:<name>, client usages)
// is approved when a SubjectAccessReview says its requester may create
// certificatesigningrequests/selfnodeclient (renewing its own) or
// certificatesigningrequests/nodeclient (bootstrapping a node). Anything
// else is left to a person.
package csrapproving

import (
	"context"
	"crypto/x509"
	"fmt"
	"log/slog"

	authorizationv1 "k8s.io/api/authorization/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	certinformers "k8s.io/client-go/informers/certificates/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/clock"

	"github.com/kapi-dev/kapi/internal/controllers/certificates"
)

// recognizer is one kind of request the controller may approve.
type recognizer struct {
	recognize      func(*certificatesv1.CertificateSigningRequest, *x509.CertificateRequest) bool
	subresource    string
	successMessage string
}

var recognizers = []recognizer{
	{
		recognize: func(csr *certificatesv1.CertificateSigningRequest, req *x509.CertificateRequest) bool {
			return isNodeClientCert(csr, req) && csr.Spec.Username == req.Subject.CommonName
		},
		subresource:    "selfnodeclient",
		successMessage: "Auto approving self kubelet client certificate after SubjectAccessReview.",
	},
	{
		recognize:      isNodeClientCert,
		subresource:    "nodeclient",
		successMessage: "Auto approving kubelet client certificate after SubjectAccessReview.",
	},
}

func isNodeClientCert(csr *certificatesv1.CertificateSigningRequest, req *x509.CertificateRequest) bool {
	return csr.Spec.SignerName == certificatesv1.KubeAPIServerClientKubeletSignerName &&
		certificates.ValidateKubeletClientCSR(req, csr.Spec.Usages) == nil
}

// Controller approves kubelet client requests.
type Controller struct {
	client kubernetes.Interface
	csrs   *certificates.Queue
	clock  clock.PassiveClock
	logger *slog.Logger
}

// New returns the approver over the shared CSR informer.
func New(client kubernetes.Interface, csrs certinformers.CertificateSigningRequestInformer, clk clock.PassiveClock, logger *slog.Logger) (*Controller, error) {
	q, err := certificates.NewQueue(csrs, nil)
	if err != nil {
		return nil, err
	}
	return &Controller{client: client, csrs: q, clock: clk, logger: logger}, nil
}

// Run waits for the cache, then approves with workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	c.csrs.Run(ctx, workers, c.logger, c.sync)
}

func (c *Controller) sync(ctx context.Context, name string) error {
	cached, err := c.csrs.Cached(name)
	if cached == nil || err != nil {
		return err
	}
	if len(cached.Status.Certificate) != 0 {
		return nil
	}
	if approved, denied := certificates.ApprovalState(cached); approved || denied {
		return nil
	}
	req, err := certificates.ParseCSR(cached.Spec.Request)
	if err != nil {
		return fmt.Errorf("unable to parse csr %q: %v", name, err)
	}
	var tried []string
	for _, r := range recognizers {
		if !r.recognize(cached, req) {
			continue
		}
		tried = append(tried, r.subresource)
		ok, err := c.authorize(ctx, cached, r.subresource)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		csr := cached.DeepCopy()
		csr.Status.Conditions = append(csr.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{
			Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue,
			Reason: "AutoApproved", Message: r.successMessage,
			LastUpdateTime: metav1.NewTime(c.clock.Now()),
		})
		if _, err := c.client.CertificatesV1().CertificateSigningRequests().UpdateApproval(ctx, csr.Name, csr, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("error updating approval for csr: %v", err)
		}
		return nil
	}
	if len(tried) > 0 {
		// Retried with backoff: permission may be granted later.
		return fmt.Errorf("recognized csr %q as %v but subject access review was not approved", name, tried)
	}
	return nil
}

// authorize asks whether the requester may create the subresource.
func (c *Controller) authorize(ctx context.Context, csr *certificatesv1.CertificateSigningRequest, subresource string) (bool, error) {
	extra := map[string]authorizationv1.ExtraValue{}
	for k, v := range csr.Spec.Extra {
		extra[k] = authorizationv1.ExtraValue(v)
	}
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: csr.Spec.Username, UID: csr.Spec.UID, Groups: csr.Spec.Groups, Extra: extra,
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Group: "certificates.k8s.io", Resource: "certificatesigningrequests",
			Subresource: subresource, Verb: "create",
		},
	}}
	got, err := c.client.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
	if err != nil {
		return false, err
	}
	return got.Status.Allowed, nil
}
