// Package conversion converts custom resources between the versions of
// their CustomResourceDefinition by calling the CRD's conversion webhook
// with a ConversionReview, and checks what the webhook answers: the same
// objects, in the desired version, with only labels and annotations changed
// in their metadata.
package conversion

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/kapi-dev/kapi/internal/webhook"
)

// WebhookConverter converts the objects of one CRD through its webhook.
type WebhookConverter struct {
	client         *webhook.Client
	group          string
	listKind       string
	versions       map[string]bool
	reviewVersions []string
}

// NewWebhookConverter is the converter of a CRD whose spec.conversion.strategy is Webhook.
func NewWebhookConverter(crd *apiextv1.CustomResourceDefinition, clients *webhook.ClientManager) (*WebhookConverter, error) {
	if crd == nil || clients == nil {
		return nil, errors.New("a CustomResourceDefinition and a webhook client manager are required")
	}
	conv := crd.Spec.Conversion
	if conv == nil || conv.Strategy != apiextv1.WebhookConverter {
		return nil, fmt.Errorf("CustomResourceDefinition %s does not use the %s conversion strategy", crd.Name, apiextv1.WebhookConverter)
	}
	if conv.Webhook == nil || conv.Webhook.ClientConfig == nil {
		return nil, fmt.Errorf("CustomResourceDefinition %s: spec.conversion.webhook.clientConfig is required for the %s strategy", crd.Name, apiextv1.WebhookConverter)
	}
	client, err := clients.Client(clientConfig(crd.Name, conv.Webhook.ClientConfig))
	if err != nil {
		return nil, err
	}
	listKind := crd.Spec.Names.ListKind
	if listKind == "" {
		listKind = crd.Spec.Names.Kind + "List"
	}
	versions := make(map[string]bool, len(crd.Spec.Versions))
	for _, v := range crd.Spec.Versions {
		versions[v.Name] = true
	}
	return &WebhookConverter{
		client:         client,
		group:          crd.Spec.Group,
		listKind:       listKind,
		versions:       versions,
		reviewVersions: append([]string(nil), conv.Webhook.ConversionReviewVersions...),
	}, nil
}

// clientConfig is the webhook client configuration of a CRD, named as
// upstream names it in errors.
func clientConfig(crdName string, api *apiextv1.WebhookClientConfig) webhook.ClientConfig {
	cfg := webhook.ClientConfig{Name: "conversion_webhook_for_" + crdName}
	// A caBundle of only whitespace means none.
	if len(bytes.TrimSpace(api.CABundle)) > 0 {
		cfg.CABundle = api.CABundle
	}
	if api.URL != nil {
		cfg.URL = *api.URL
	}
	if svc := api.Service; svc != nil {
		ref := &webhook.ServiceReference{Namespace: svc.Namespace, Name: svc.Name, Port: 443}
		if svc.Port != nil {
			ref.Port = *svc.Port
		}
		if svc.Path != nil {
			ref.Path = *svc.Path
		}
		cfg.Service = ref
	}
	return cfg
}

// Convert converts objs (each any served or stored version of the CRD) to gv, in order, with one
// ConversionReview for all objects not already at gv (objects already at gv are returned as
// they are without calling the webhook; no call at all when nothing needs converting).
//
// Errors use upstream's wording: for one object they name its kind, for
// several they read as upstream's list conversion, naming <gv>, Kind=<ListKind>.
func (c *WebhookConverter) Convert(ctx context.Context, objs []*unstructured.Unstructured, gv schema.GroupVersion) ([]*unstructured.Unstructured, error) {
	if err := c.checkVersions(objs, gv); err != nil {
		return nil, err
	}
	desired := gv.String()
	out := make([]*unstructured.Unstructured, len(objs))
	var pending []int // indexes of the objects the webhook converts
	for i, o := range objs {
		switch {
		case o.GetAPIVersion() == desired:
			out[i] = o
		case isEmptyObject(o):
			// Nothing to convert but the version, as upstream special-cases.
			cp := o.DeepCopy()
			cp.SetAPIVersion(desired)
			out[i] = cp
		default:
			pending = append(pending, i)
		}
	}
	version, err := reviewVersion(c.reviewVersions)
	if err != nil {
		return nil, err
	}
	if len(pending) == 0 {
		return out, nil
	}

	k := &call{single: len(objs) == 1, gv: gv}
	if k.single {
		k.subject = objs[0].GroupVersionKind()
	} else {
		k.subject = gv.WithKind(c.listKind)
	}
	originals := make([]*unstructured.Unstructured, len(pending))
	for j, i := range pending {
		originals[j] = objs[i]
	}
	converted, err := c.call(ctx, k, version, originals)
	if err != nil {
		return nil, err
	}
	for j, i := range pending {
		out[i] = converted[j]
	}
	return out, nil
}

// checkVersions refuses versions the CRD does not have, as upstream's
// converter does before any conversion.
func (c *WebhookConverter) checkVersions(objs []*unstructured.Unstructured, gv schema.GroupVersion) error {
	if gv.Group != c.group || !c.versions[gv.Version] {
		return fmt.Errorf("request to convert CR to an invalid group/version: %s", gv)
	}
	for i, o := range objs {
		if o == nil {
			return fmt.Errorf("request to convert CR list failed, list index %d is nil", i)
		}
		from := o.GroupVersionKind().GroupVersion()
		if from.Group == c.group && c.versions[from.Version] {
			continue
		}
		if len(objs) == 1 {
			return fmt.Errorf("request to convert CR from an invalid group/version: %s", from)
		}
		return fmt.Errorf("request to convert CR list failed, list index %d has invalid group/version: %s", i, from)
	}
	return nil
}

// isEmptyObject reports an object with nothing but apiVersion and kind.
func isEmptyObject(u *unstructured.Unstructured) bool {
	_, hasKind := u.Object["kind"]
	_, hasVersion := u.Object["apiVersion"]
	return len(u.Object) == 2 && hasKind && hasVersion
}

// call holds what the error messages of one webhook call need.
type call struct {
	single  bool                    // one object: upstream's single-object wording
	subject schema.GroupVersionKind // what the messages say is being converted
	gv      schema.GroupVersion
}

// callError keeps the webhook client's typed error reachable under
// upstream's message.
type callError struct {
	msg string
	err error
}

func (e *callError) Error() string { return e.msg }
func (e *callError) Unwrap() error { return e.err }

// call sends one ConversionReview for originals and checks the answer.
func (c *WebhookConverter) call(ctx context.Context, k *call, version string, originals []*unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	uid := uuid.NewUUID()
	req, err := newReview(version, uid, k.gv.String(), originals)
	if err != nil {
		return nil, fmt.Errorf("conversion webhook for %v failed: %w", k.subject, err)
	}
	var resp ConversionReview
	if err := c.client.Post(ctx, req, &resp); err != nil {
		// Upstream's message carries the cause, not the client's prefix.
		cause := err
		var callErr *webhook.ErrCallingWebhook
		if errors.As(err, &callErr) && callErr.Reason != nil {
			cause = callErr.Reason
		}
		return nil, &callError{msg: fmt.Sprintf("conversion webhook for %v failed: %v", k.subject, cause), err: err}
	}
	return k.answer(version, uid, originals, &resp)
}

// answer checks a webhook's answer to a request for originals and returns
// the converted objects.
func (k *call) answer(version string, uid types.UID, originals []*unstructured.Unstructured, resp *ConversionReview) ([]*unstructured.Unstructured, error) {
	raws, err := convertedObjects(version, uid, resp)
	if err != nil {
		return nil, fmt.Errorf("conversion webhook for %v failed: %w", k.subject, err)
	}
	if len(raws) != len(originals) {
		return nil, fmt.Errorf("conversion webhook for %v returned %d objects, expected %d", k.subject, len(raws), len(originals))
	}
	out := make([]*unstructured.Unstructured, len(raws))
	for i := range raws {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(raws[i].Raw); err != nil {
			if k.single {
				return nil, err
			}
			return nil, fmt.Errorf("conversion webhook for %v returned invalid converted object at index %v: %w", k.subject, i, err)
		}
		if err := k.check(originals[i], u, i); err != nil {
			return nil, err
		}
		out[i] = u
	}
	return out, nil
}

// check refuses a converted object that is not the original in the desired
// version, and restores the metadata the webhook may not change.
func (k *call) check(original, converted *unstructured.Unstructured, i int) error {
	object := fmt.Sprintf("returned invalid converted object at index %d", i)
	invalid, metadata := object, fmt.Sprintf("returned invalid metadata in object at index %d", i)
	if k.single {
		object, invalid, metadata = "returned invalid object at index 0", "returned invalid object", "returned invalid metadata"
	}
	if got := converted.GroupVersionKind().GroupVersion(); got != k.gv {
		return fmt.Errorf("conversion webhook for %v %s: invalid groupVersion (expected %v, received %v)", k.subject, object, k.gv, got)
	}
	if want, got := original.GetKind(), converted.GetKind(); want != got {
		return fmt.Errorf("conversion webhook for %v %s: invalid kind (expected %v, received %v)", k.subject, object, want, got)
	}
	if err := validateConvertedObject(original, converted); err != nil {
		return fmt.Errorf("conversion webhook for %v %s: %w", k.subject, invalid, err)
	}
	if err := restoreObjectMeta(original, converted); err != nil {
		return fmt.Errorf("conversion webhook for %v %s: %w", k.subject, metadata, err)
	}
	return nil
}
