// Package webhook implements the MutatingAdmissionWebhook and
// ValidatingAdmissionWebhook admission plugins: the webhooks of
// admissionregistration.k8s.io/v1 configurations, read live from shared
// informers, matched to each request as upstream (rules, scope,
// namespace and object selectors, matchPolicy Equivalent, CEL
// matchConditions) and called with an AdmissionReview over the generic
// webhook client of internal/webhook.
package webhook

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	corelisters "k8s.io/client-go/listers/core/v1"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/webhook"
)

// Plugin names, as upstream.
const (
	MutatingPluginName   = "MutatingAdmissionWebhook"
	ValidatingPluginName = "ValidatingAdmissionWebhook"
)

// EquivalentMapper knows which resources are served from the same
// storage in other groups or versions (matchPolicy Equivalent).
type EquivalentMapper interface {
	// EquivalentResources are the resources (the given one included)
	// that store the same objects as gvr.
	EquivalentResources(gvr schema.GroupVersionResource, subresource string) []schema.GroupVersionResource
	// KindFor is the kind gvr (and subresource) serves.
	KindFor(gvr schema.GroupVersionResource, subresource string) (schema.GroupVersionKind, bool)
}

// Options are what both plugins are built from.
type Options struct {
	// Clients calls the webhooks (URL or service, with caBundle).
	Clients *webhook.ClientManager
	// Namespaces lists namespaces for namespaceSelector; GetNamespace
	// reads one the lister does not know yet (may be nil).
	Namespaces   corelisters.NamespaceLister
	GetNamespace func(ctx context.Context, name string) (*corev1.Namespace, error)
	// Scheme converts built-in objects to the version a webhook is sent.
	Scheme *runtime.Scheme
	// Mapper finds equivalent resources; nil matches exactly only.
	Mapper EquivalentMapper
	// Authorizer backs the authorizer variables of matchConditions; nil
	// leaves them unset (a condition using them fails to evaluate).
	Authorizer authorizer.Authorizer
	Logger     *slog.Logger
	// Metrics receives each call's outcome; nil records nothing.
	Metrics Observer
}

// dispatcher is what the two plugins share.
type dispatcher struct {
	opts   Options
	source *source
	plugin string
}

func (d *dispatcher) logger() *slog.Logger {
	if d.opts.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return d.opts.Logger
}

// hooks are the current webhooks, or upstream's Forbidden while the
// configurations are not yet known.
func (d *dispatcher) hooks(ctx context.Context, a *admission.Attributes) ([]*hook, error) {
	hooks, ok := d.source.webhooks(ctx)
	if !ok {
		return nil, forbidden(a, errors.New("not yet ready to handle request"))
	}
	return hooks, nil
}

// forbidden is upstream's admission.NewForbidden.
func forbidden(a *admission.Attributes, err error) error {
	gr := a.Resource.GroupResource()
	name := a.Name
	if a.Subresource != "" {
		gr.Resource += "/" + a.Subresource
	}
	return apierrors.NewForbidden(gr, name, err)
}

// matched is a webhook to call for a request, or nil.
func (d *dispatcher) matched(ctx context.Context, h *hook, a *admission.Attributes, v *versioned) (*invocation, error) {
	inv, ok, err := d.shouldCall(ctx, h, a)
	if err != nil || !ok {
		return nil, err
	}
	return &inv, nil
}

// ignore says whether an error calling h is swallowed by its policy.
func (h *hook) ignoreFailures() bool {
	return h.failurePolicy == admissionregistrationv1.Ignore
}

// checkDryRun is upstream's refusal to call a webhook with side effects
// on a dry run; it is not subject to the failure policy.
func checkDryRun(h *hook, a *admission.Attributes) error {
	if !a.DryRun {
		return nil
	}
	if h.sideEffects == admissionregistrationv1.SideEffectClassNone || h.sideEffects == admissionregistrationv1.SideEffectClassNoneOnDryRun {
		return nil
	}
	return apierrors.NewBadRequest(fmt.Sprintf("admission webhook %q does not support dry run", h.name))
}

// callFailed is what a failed call becomes under failurePolicy Fail.
func callFailed(err error) error {
	return apierrors.NewInternalError(err)
}

// trackWebhooks adds the time since start to the request's webhook
// latency, which apiserver_request_sli_duration_seconds leaves out.
func trackWebhooks(ctx context.Context, start time.Time) {
	request.AddWebhookLatency(ctx, time.Since(start))
}
