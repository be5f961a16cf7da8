package controlplane

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	v1helper "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/helper"
	apiregistrationclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset/typed/apiregistration/v1"
	apiregistrationlisters "k8s.io/kube-aggregator/pkg/client/listers/apiregistration/v1"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/controllers/worker"
)

// defaultAvailabilityRecheck is how often a remote APIService is checked
// again without any change (upstream resyncs its informer every 30s).
const defaultAvailabilityRecheck = 30 * time.Second

// discoveryAttempts is how many discovery GETs a check sends at once; one
// success is enough, as upstream (each resolves an endpoint anew).
const discoveryAttempts = 5

// availability keeps the Available condition of APIServices. Upstream runs
// two controllers: the local one (reason Local for APIServices without a
// service) and the remote one, which checks the Service, its
// EndpointSlices and the server's discovery, with upstream's reasons
// ServiceNotFound, ServiceAccessError, ServicePortError,
// EndpointsAccessError, EndpointsNotFound, MissingEndpoints,
// FailedDiscoveryCheck and Passed. The condition is written only when it
// changes; its lastTransitionTime only when its status does.
type availability struct {
	// local selects the local controller; otherwise the remote one.
	local    bool
	lister   apiregistrationlisters.APIServiceLister
	client   apiregistrationclient.APIServicesGetter
	services corelisters.ServiceLister
	slices   cache.Indexer
	resolver serviceResolver
	// discovery GETs a remote server's discovery document.
	discovery *http.Client
	recheck   time.Duration
	queue     workqueue.TypedRateLimitingInterface[string]
	logger    *slog.Logger
}

// newAvailabilityQueue uses upstream's tight retry (5ms doubling up to
// 30s): a failed discovery check is retried soon.
func newAvailabilityQueue(name string) workqueue.TypedRateLimitingInterface[string] {
	return workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](5*time.Millisecond, 30*time.Second),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: name})
}

// newDiscoveryClient is the client of the discovery checks: like
// upstream's, it does not verify the server (the check is best effort
// and informs no decision a spoofer could exploit beyond the status),
// presents the front-proxy client certificate, waits 5s at most and
// follows no redirect.
func newDiscoveryClient(clientCert *tls.Certificate) *http.Client {
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: true} //nolint:gosec // upstream's check does not verify either
	if clientCert != nil {
		tlsConfig.Certificates = []tls.Certificate{*clientCert}
	}
	return &http.Client{
		Transport:     &http.Transport{TLSClientConfig: tlsConfig, MaxIdleConnsPerHost: 2},
		Timeout:       5 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
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
	if (s.Spec.Service == nil) != a.local {
		return nil // the other controller's
	}
	var cond apiregistrationv1.APIServiceCondition
	var checkErr error
	if a.local {
		cond = v1helper.NewLocalAvailableAPIServiceCondition()
	} else {
		cond, checkErr = a.check(ctx, s)
		a.queue.AddAfter(name, a.recheck)
	}
	update := s.DeepCopy()
	v1helper.SetAPIServiceCondition(update, cond)
	if !equality.Semantic.DeepEqual(s.Status, update.Status) {
		_, err = a.client.APIServices().UpdateStatus(ctx, update, metav1.UpdateOptions{})
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			return nil // changed meanwhile: its event brings it back
		}
		if err != nil {
			return err
		}
	}
	// A failed discovery check is retried with backoff besides the
	// periodic check, as upstream.
	return checkErr
}

// check runs upstream's checks of a remote APIService in order; the
// error is the failed discovery check's, nil otherwise.
func (a *availability) check(ctx context.Context, s *apiregistrationv1.APIService) (apiregistrationv1.APIServiceCondition, error) {
	ref := s.Spec.Service
	port := ptr.Deref(ref.Port, 443)
	cond := func(status apiregistrationv1.ConditionStatus, reason, format string, args ...any) apiregistrationv1.APIServiceCondition {
		return apiregistrationv1.APIServiceCondition{
			Type: apiregistrationv1.Available, Status: status, LastTransitionTime: metav1.Now(),
			Reason: reason, Message: fmt.Sprintf(format, args...),
		}
	}
	svc, err := a.services.Services(ref.Namespace).Get(ref.Name)
	switch {
	case apierrors.IsNotFound(err):
		return cond(apiregistrationv1.ConditionFalse, "ServiceNotFound", "service/%s in %q is not present", ref.Name, ref.Namespace), nil
	case err != nil:
		return cond(apiregistrationv1.ConditionUnknown, "ServiceAccessError", "service/%s in %q cannot be checked due to: %v", ref.Name, ref.Namespace, err), nil
	}
	// Only a cluster IP Service promises a port and endpoints to check.
	if svc.Spec.Type == corev1.ServiceTypeClusterIP {
		svcPort := servicePort(svc, port)
		if svcPort == nil {
			return cond(apiregistrationv1.ConditionFalse, "ServicePortError", "service/%s in %q is not listening on port %d", ref.Name, ref.Namespace, port), nil
		}
		slices, err := endpointSlicesOf(a.slices, ref.Namespace, ref.Name)
		switch {
		case err != nil:
			return cond(apiregistrationv1.ConditionUnknown, "EndpointsAccessError", "service/%s in %q cannot be checked due to: %v", ref.Name, ref.Namespace, err), nil
		case len(slices) == 0:
			return cond(apiregistrationv1.ConditionFalse, "EndpointsNotFound", "cannot find endpointslices for service/%s in %q", ref.Name, ref.Namespace), nil
		case !hasAvailableEndpoint(slices, svcPort.Name):
			return cond(apiregistrationv1.ConditionFalse, "MissingEndpoints", "endpointslices for service/%s in %q have no addresses with port name %q", ref.Name, ref.Namespace, svcPort.Name), nil
		}
	}
	if err := a.discoveryCheck(ctx, s, port); err != nil {
		return cond(apiregistrationv1.ConditionFalse, "FailedDiscoveryCheck", "%s", err.Error()), err
	}
	return cond(apiregistrationv1.ConditionTrue, "Passed", "all checks passed"), nil
}

// hasAvailableEndpoint is upstream's test: a slice with a ready (or not
// known unready) endpoint that serves the port named portName.
func hasAvailableEndpoint(slices []*discoveryv1.EndpointSlice, portName string) bool {
	for _, s := range slices {
		ready := false
		for _, e := range s.Endpoints {
			if e.Conditions.Ready == nil || *e.Conditions.Ready {
				ready = true
				break
			}
		}
		if !ready {
			continue
		}
		for _, p := range s.Ports {
			if p.Name != nil && *p.Name == portName && p.Port != nil {
				return true
			}
		}
	}
	return false
}

// discoveryCheck GETs the discovery document of the group version as
// system:kube-aggregator in system:masters, discoveryAttempts times at
// once; nil if one answered 2xx, else the last failure.
func (a *availability) discoveryCheck(ctx context.Context, s *apiregistrationv1.APIService, port int32) error {
	results := make(chan error, discoveryAttempts)
	for range discoveryAttempts {
		go func() { results <- a.discoveryAttempt(ctx, s, port) }()
	}
	var last error
	for range discoveryAttempts {
		if last = <-results; last == nil {
			return nil // the others finish into the buffered channel
		}
	}
	return last
}

func (a *availability) discoveryAttempt(ctx context.Context, s *apiregistrationv1.APIService, port int32) error {
	resolved, err := a.resolver.ResolveEndpoint(s.Spec.Service.Namespace, s.Spec.Service.Name, port)
	if err != nil {
		return err
	}
	u := *resolved // a resolver may hand out a shared URL
	u.Path = "/apis/" + s.Spec.Group + "/" + s.Spec.Version
	if s.Name == "v1." {
		u.Path = "/api/" + s.Spec.Version
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	setIdentityHeaders(req.Header, "system:kube-aggregator", "", []string{"system:masters"}, nil)
	resp, err := a.discovery.Do(req)
	if err != nil {
		return fmt.Errorf("failing or missing response from %v: %w", &u, err)
	}
	resp.Body.Close()
	if resp.StatusCode < http.StatusOK || resp.StatusCode >= http.StatusMultipleChoices {
		return fmt.Errorf("failing or missing response from %v: bad status from %v: %d", &u, &u, resp.StatusCode)
	}
	return nil
}
