package controlplane

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/workqueue"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	v1helper "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/helper"
	apiregistrationclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset/typed/apiregistration/v1"
	apiregistrationlisters "k8s.io/kube-aggregator/pkg/client/listers/apiregistration/v1"

	"github.com/kapi-dev/kapi/internal/controllers/worker"
)

// availabilityRecheck is how often a remote APIService is checked again
// without any change.
const availabilityRecheck = 30 * time.Second

// availability keeps the Available condition of every APIService, with
// upstream's reasons: Local, ServiceNotFound, ServiceAccessError,
// MissingEndpoints, FailedDiscoveryCheck, and Passed.
type availability struct {
	lister  apiregistrationlisters.APIServiceLister
	client  apiregistrationclient.APIServicesGetter
	kube    kubernetes.Interface
	remotes *remoteAPIServices
	queue   workqueue.TypedRateLimitingInterface[string]
	logger  *slog.Logger
}

func (a *availability) run(ctx context.Context) {
	worker.Run(ctx, a.queue, 2, a.logger, a.sync)
}

func (a *availability) sync(ctx context.Context, name string) error {
	s, err := a.lister.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	cond := v1helper.NewLocalAvailableAPIServiceCondition()
	if s.Spec.Service != nil {
		cond = a.check(ctx, s)
		a.queue.AddAfter(name, availabilityRecheck)
	}
	old := v1helper.GetAPIServiceConditionByType(s, apiregistrationv1.Available)
	if old != nil && old.Status == cond.Status && old.Reason == cond.Reason && old.Message == cond.Message {
		return nil
	}
	update := s.DeepCopy()
	v1helper.SetAPIServiceCondition(update, cond)
	_, err = a.client.APIServices().UpdateStatus(ctx, update, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil // changed meanwhile: its event brings it back
	}
	return err
}

// check runs upstream's checks of a remote APIService in order: its
// Service exists, has endpoints (an ExternalName one needs none), and
// the server answers the discovery of the group version.
func (a *availability) check(ctx context.Context, s *apiregistrationv1.APIService) apiregistrationv1.APIServiceCondition {
	ref := s.Spec.Service
	unavailable := func(reason, msg string) apiregistrationv1.APIServiceCondition {
		return apiregistrationv1.APIServiceCondition{
			Type: apiregistrationv1.Available, Status: apiregistrationv1.ConditionFalse,
			LastTransitionTime: metav1.Now(), Reason: reason, Message: msg,
		}
	}
	svc, err := a.kube.CoreV1().Services(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return unavailable("ServiceNotFound", fmt.Sprintf("service/%s in %q is not present", ref.Name, ref.Namespace))
	case err != nil:
		return unavailable("ServiceAccessError", fmt.Sprintf("service/%s in %q cannot be checked due to: %v", ref.Name, ref.Namespace, err))
	}
	p := a.remotes.proxyFor(s.Name)
	if p == nil {
		return unavailable("FailedDiscoveryCheck", "no proxy is installed for this APIService yet")
	}
	target, err := p.resolver.ResolveEndpoint(ref.Namespace, ref.Name, p.port)
	if err != nil {
		return unavailable("MissingEndpoints", fmt.Sprintf("endpoints for service/%s in %q have no addresses: %v", svc.Name, svc.Namespace, err))
	}
	discoveryURL := *target
	discoveryURL.Path = "/apis/" + s.Spec.Group + "/" + s.Spec.Version
	if err := p.discoveryCheck(ctx, discoveryURL.String()); err != nil {
		return unavailable("FailedDiscoveryCheck", fmt.Sprintf("failing or missing response from %s: %v", discoveryURL.String(), err))
	}
	return apiregistrationv1.APIServiceCondition{
		Type: apiregistrationv1.Available, Status: apiregistrationv1.ConditionTrue,
		LastTransitionTime: metav1.Now(), Reason: "Passed", Message: "all checks passed",
	}
}

// discoveryCheck GETs url as the front proxy, as the system:kube-aggregator
// user, within five seconds.
func (p *remoteProxy) discoveryCheck(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	setIdentityHeaders(req.Header, "system:kube-aggregator", []string{"system:masters"}, nil)
	resp, err := p.transport.RoundTrip(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		return errors.New("bad status from " + url + ": " + fmt.Sprint(resp.StatusCode))
	}
	return nil
}
