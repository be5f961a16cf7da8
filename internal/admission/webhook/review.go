package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/webhook"
)

// reviewVersions kapi speaks, in its order of preference.
var reviewVersions = []string{"v1", "v1beta1"}

// versioned encodes the request's objects in the versions webhooks are
// sent, each version once per request (validating webhooks share it
// from parallel goroutines).
type versioned struct {
	a      *admission.Attributes
	scheme *runtime.Scheme
	mu     sync.Mutex
	byGVK  map[schema.GroupVersionKind]*encoded
}

type encoded struct {
	object, oldObject, options []byte
	err                        error
	// vars are the CEL variables of matchConditions, built on first use.
	vars map[string]any
}

func newVersioned(a *admission.Attributes, scheme *runtime.Scheme) *versioned {
	return &versioned{a: a, scheme: scheme}
}

// reset forgets the encodings after a mutation changed the object.
func (v *versioned) reset() {
	v.mu.Lock()
	v.byGVK = nil
	v.mu.Unlock()
}

func (v *versioned) get(gvk schema.GroupVersionKind) *encoded {
	v.mu.Lock()
	defer v.mu.Unlock()
	if e, ok := v.byGVK[gvk]; ok {
		return e
	}
	e := &encoded{}
	e.object, e.err = encodeAs(v.scheme, v.a.Object, gvk)
	if e.err == nil {
		e.oldObject, e.err = encodeAs(v.scheme, v.a.OldObject, gvk)
	}
	if e.err == nil && v.a.Options != nil {
		e.options, e.err = json.Marshal(v.a.Options)
	}
	if v.byGVK == nil {
		v.byGVK = map[schema.GroupVersionKind]*encoded{}
	}
	v.byGVK[gvk] = e
	return e
}

// encodeAs is obj as JSON in gvk's version: built-in objects convert
// through the scheme; custom resources are stored in the version asked.
func encodeAs(scheme *runtime.Scheme, obj runtime.Object, gvk schema.GroupVersionKind) ([]byte, error) {
	if obj == nil {
		return nil, nil
	}
	if u, ok := obj.(*unstructured.Unstructured); ok {
		if u.GroupVersionKind() == gvk || gvk.Empty() {
			return json.Marshal(u.Object)
		}
		c := u.DeepCopy()
		c.SetGroupVersionKind(gvk)
		return json.Marshal(c.Object)
	}
	out := obj.DeepCopyObject()
	if scheme != nil {
		kinds, _, err := scheme.ObjectKinds(out)
		if err == nil && len(kinds) > 0 && !slices.ContainsFunc(kinds, func(k schema.GroupVersionKind) bool { return k.GroupVersion() == gvk.GroupVersion() }) {
			if out, err = scheme.ConvertToVersion(out, gvk.GroupVersion()); err != nil {
				return nil, fmt.Errorf("converting to %s: %w", gvk.GroupVersion(), err)
			}
		}
	}
	out.GetObjectKind().SetGroupVersionKind(gvk)
	return json.Marshal(out)
}

// celVars are the variables matchConditions see.
func (e *encoded) celVars(req *admissionv1.AdmissionRequest) (map[string]any, error) {
	if e.vars != nil {
		return e.vars, nil
	}
	vars := map[string]any{"object": nil, "oldObject": nil}
	for name, raw := range map[string][]byte{"object": e.object, "oldObject": e.oldObject} {
		if raw == nil {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, err
		}
		vars[name] = m
	}
	r := *req
	r.Object, r.OldObject = runtime.RawExtension{}, runtime.RawExtension{}
	data, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	var rm map[string]any
	if err := json.Unmarshal(data, &rm); err != nil {
		return nil, err
	}
	delete(rm, "object")
	delete(rm, "oldObject")
	vars["request"] = rm
	e.vars = vars
	return vars, nil
}

// newRequest is the AdmissionRequest of one call.
func newRequest(inv *invocation, a *admission.Attributes, e *encoded) *admissionv1.AdmissionRequest {
	reqKind := metav1.GroupVersionKind(a.Kind)
	reqResource := metav1.GroupVersionResource(a.Resource)
	dry := a.DryRun
	r := &admissionv1.AdmissionRequest{
		UID:                types.UID(uuid.NewUUID()),
		Kind:               metav1.GroupVersionKind(inv.kind),
		Resource:           metav1.GroupVersionResource(inv.resource),
		SubResource:        a.Subresource,
		RequestKind:        &reqKind,
		RequestResource:    &reqResource,
		RequestSubResource: a.Subresource,
		Name:               a.Name,
		Namespace:          a.Namespace,
		Operation:          admissionv1.Operation(a.Operation),
		Object:             runtime.RawExtension{Raw: e.object},
		OldObject:          runtime.RawExtension{Raw: e.oldObject},
		Options:            runtime.RawExtension{Raw: e.options},
		DryRun:             &dry,
	}
	if u := a.UserInfo; u != nil {
		r.UserInfo = authenticationv1.UserInfo{Username: u.GetName(), UID: u.GetUID(), Groups: u.GetGroups()}
		if extra := u.GetExtra(); len(extra) > 0 {
			r.UserInfo.Extra = map[string]authenticationv1.ExtraValue{}
			for k, v := range extra {
				r.UserInfo.Extra[k] = v
			}
		}
	}
	return r
}

// call sends one AdmissionReview in the first version the webhook
// accepts and returns its checked response. Every failure is an
// *webhook.ErrCallingWebhook, for the failure policy to judge.
func (d *dispatcher) call(ctx context.Context, h *hook, req *admissionv1.AdmissionRequest) (*admissionv1.AdmissionResponse, error) {
	fail := func(err error) error { return &webhook.ErrCallingWebhook{WebhookName: h.name, Reason: err} }
	if h.err != nil {
		return nil, fail(h.err)
	}
	version := ""
	for _, v := range h.reviewVersions {
		if slices.Contains(reviewVersions, v) {
			version = v
			break
		}
	}
	if version == "" {
		return nil, fail(fmt.Errorf("webhook does not accept known AdmissionReview versions %v", reviewVersions))
	}
	client, err := h.clientFor(d.opts.Clients)
	if err != nil {
		var ce *webhook.ErrCallingWebhook
		if errors.As(err, &ce) {
			return nil, fail(fmt.Errorf("failed to call webhook: %w", ce.Reason))
		}
		return nil, fail(err)
	}
	in := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: admissionv1.SchemeGroupVersion.Group + "/" + version, Kind: "AdmissionReview"},
		Request:  req,
	}
	var out admissionv1.AdmissionReview
	ctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	if err := client.PostWithTimeout(ctx, h.timeout, in, &out); err != nil {
		var ce *webhook.ErrCallingWebhook
		if errors.As(err, &ce) {
			return nil, &webhook.ErrCallingWebhook{WebhookName: h.name, Reason: fmt.Errorf("failed to call webhook: %w", ce.Reason), Status: ce.Status}
		}
		return nil, fail(fmt.Errorf("failed to call webhook: %w", err))
	}
	if version == "v1" && (out.APIVersion != in.APIVersion || out.Kind != "AdmissionReview") {
		return nil, fail(fmt.Errorf("received invalid webhook response: expected webhook response of %s, Kind=AdmissionReview, got %s, Kind=%s", in.APIVersion, out.APIVersion, out.Kind))
	}
	if out.Response == nil {
		return nil, fail(errors.New("received invalid webhook response: webhook response was absent"))
	}
	if version == "v1" && out.Response.UID != req.UID {
		return nil, fail(fmt.Errorf("received invalid webhook response: expected response.uid=%q, got %q", req.UID, out.Response.UID))
	}
	return out.Response, nil
}

// clientFor builds the hook's client once; a configuration change
// builds new hooks and so new clients.
func (h *hook) clientFor(m *webhook.ClientManager) (*webhook.Client, error) {
	h.clientOnce.Do(func() { h.clientVal, h.clientErr = m.Client(h.client) })
	return h.clientVal, h.clientErr
}

// denied is upstream's error for a webhook that did not allow the
// request: its status, at least 400, with the message prefixed.
func denied(name string, st *metav1.Status) error {
	prefix := fmt.Sprintf("admission webhook %q denied the request", name)
	s := metav1.Status{Status: metav1.StatusFailure}
	if st != nil {
		s = *st
	}
	if s.Code < 400 {
		s.Code = 400
	}
	if s.Status == "" || s.Status == metav1.StatusSuccess {
		s.Status = metav1.StatusFailure
	}
	switch {
	case s.Message != "":
		s.Message = prefix + ": " + s.Message
	case s.Reason != "":
		s.Message = prefix + ": " + string(s.Reason)
	default:
		s.Message = prefix + " without explanation"
	}
	return &apierrors.StatusError{ErrStatus: s}
}
