package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	admissionregistrationv1informers "k8s.io/client-go/informers/admissionregistration/v1"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/audit"
	"github.com/kapi-dev/kapi/internal/webhook"
)

// Mutating is the MutatingAdmissionWebhook plugin: matching webhooks are
// called in order, each seeing the object as the previous ones left it;
// a webhook with reinvocationPolicy IfNeeded is called once more, in the
// chain's second round, when the object changed after it ran.
type Mutating struct{ dispatcher }

var _ admission.MutationInterface = (*Mutating)(nil)

// NewMutating reads MutatingWebhookConfigurations from informer.
func NewMutating(informer admissionregistrationv1informers.MutatingWebhookConfigurationInformer, o Options) (*Mutating, error) {
	lister := informer.Lister()
	src, err := newSource(informer.Informer(), func() ([]*hook, error) {
		configs, err := lister.List(labels.Everything())
		if err != nil {
			return nil, err
		}
		sortByName(configs)
		var hooks []*hook
		for _, c := range configs {
			for i, w := range c.Webhooks {
				h := newHook(c.Name, i, w.Name, w.ClientConfig, w.Rules, w.FailurePolicy, w.MatchPolicy,
					w.NamespaceSelector, w.ObjectSelector, w.SideEffects, w.TimeoutSeconds, w.AdmissionReviewVersions, w.MatchConditions)
				h.reinvoke = w.ReinvocationPolicy != nil && *w.ReinvocationPolicy == admissionregistrationv1.IfNeededReinvocationPolicy
				hooks = append(hooks, h)
			}
		}
		return hooks, nil
	})
	if err != nil {
		return nil, err
	}
	return &Mutating{dispatcher{opts: o, source: src, plugin: MutatingPluginName}}, nil
}

// Admit runs the webhooks in order. A webhook that changes the object
// asks the chain for a second round, in which the webhooks with
// reinvocationPolicy IfNeeded that ran before a change run once more.
// Called outside a chain, it runs as a chain of its own.
func (p *Mutating) Admit(ctx context.Context, a *admission.Attributes) error {
	if a.Reinvocation == nil {
		return admission.Chain{p}.Admit(ctx, a)
	}
	hooks, err := p.hooks(ctx, a)
	if err != nil || len(hooks) == 0 {
		return err
	}
	// The time spent on webhooks stays out of the request's SLI latency.
	defer trackWebhooks(ctx, time.Now())
	state := admission.ReinvokedFor(a, MutatingPluginName)
	defer state.Done(a)
	round := 0
	if a.Reinvocation.IsReinvoke() {
		round = 1
	}
	v := newVersioned(a, p.opts.Scheme)
	for i, h := range hooks {
		if state.Skip(a, h.id) {
			continue
		}
		called, changed, err := p.callOne(ctx, round, i, h, a, v)
		if err != nil {
			return err
		}
		if changed {
			state.Changed()
			a.Reinvocation.SetShouldReinvoke()
		}
		if called && h.reinvoke {
			state.Ran(h.id)
		}
	}
	return nil
}

// callOne calls h if it matches; called says it answered (a call that
// failed open does not count), changed whether its patch changed the
// object.
func (p *Mutating) callOne(ctx context.Context, round, index int, h *hook, a *admission.Attributes, v *versioned) (called, changed bool, err error) {
	pr, err := p.prepare(ctx, h, a, v)
	if err != nil || pr == nil {
		return false, false, err
	}
	outcome := &callOutcome{start: time.Now()}
	defer func() {
		outcome.err = err
		p.observe(h, stepAdmit, string(a.Operation), outcome)
	}()
	resp, err := p.call(ctx, h, pr.req)
	if err == nil {
		err = checkPatchType(resp)
		if err != nil {
			err = &webhook.ErrCallingWebhook{WebhookName: h.name, Reason: fmt.Errorf("received invalid webhook response: %w", err)}
		}
	}
	if err != nil {
		outcome.callErr = err
		if h.ignoreFailures() {
			p.failedOpen(ctx, "mutation", round, index, h, err)
			return false, false, nil
		}
		return true, false, callFailed(err)
	}
	record(ctx, h, resp)
	if !resp.Allowed {
		outcome.denied = denied(h.name, resp.Result)
		return true, false, outcome.denied
	}
	if len(resp.Patch) > 0 {
		changed, err = p.applyPatch(a, pr, resp.Patch)
		if err != nil {
			return true, false, err
		}
		if changed {
			v.reset()
		}
	}
	audit.AddAnnotation(ctx, fmt.Sprintf("mutation.webhook.admission.k8s.io/round_%d_index_%d", round, index),
		fmt.Sprintf(`{"configuration":%q,"webhook":%q,"mutated":%t}`, configName(h), h.name, changed))
	return true, changed, nil
}

func configName(h *hook) string {
	for i := len(h.id) - 1; i >= 0; i-- {
		if h.id[i] == '/' {
			return h.id[:i]
		}
	}
	return h.id
}

// checkPatchType is upstream's response check: a patch needs patchType
// JSONPatch.
func checkPatchType(resp *admissionv1.AdmissionResponse) error {
	if len(resp.Patch) == 0 {
		return nil
	}
	if resp.PatchType == nil {
		return fmt.Errorf("webhook returned response.patch but not response.patchType")
	}
	if *resp.PatchType != admissionv1.PatchTypeJSONPatch {
		return fmt.Errorf("webhook returned invalid response.patchType of %q", *resp.PatchType)
	}
	return nil
}

// applyPatch applies a JSON patch to the object in the version the
// webhook saw and puts the result back into a.Object, converted to the
// object's own version.
func (p *Mutating) applyPatch(a *admission.Attributes, pr *prepared, patch []byte) (bool, error) {
	if a.Object == nil {
		return false, nil
	}
	jp, err := jsonpatch.DecodePatch(patch)
	if err != nil {
		return false, apierrors.NewInternalError(err)
	}
	patched, err := jp.Apply(pr.enc.object)
	if err != nil {
		return false, apierrors.NewInternalError(err)
	}
	out, err := decodeAs(p.opts.Scheme, a.Object, pr.inv.kind, patched)
	if err != nil {
		return false, apierrors.NewInternalError(fmt.Errorf("decoding the patched object: %w", err))
	}
	// Re-encoding makes the comparison independent of the patch
	// library's formatting.
	again, err := json.Marshal(out)
	if err != nil {
		return false, apierrors.NewInternalError(err)
	}
	if bytes.Equal(again, pr.enc.object) {
		return false, nil
	}
	if err := assignInto(p.opts.Scheme, a.Object, out); err != nil {
		return false, apierrors.NewInternalError(err)
	}
	return true, nil
}

// decodeAs decodes data as an object of gvk, of the same Go type as like
// for custom resources.
func decodeAs(scheme *runtime.Scheme, like runtime.Object, gvk schema.GroupVersionKind, data []byte) (runtime.Object, error) {
	if _, ok := like.(*unstructured.Unstructured); ok {
		u := &unstructured.Unstructured{}
		if err := json.Unmarshal(data, &u.Object); err != nil {
			return nil, err
		}
		return u, nil
	}
	out, err := scheme.New(gvk)
	if err != nil {
		out = like.DeepCopyObject()
		reflect.ValueOf(out).Elem().SetZero()
	}
	if err := json.Unmarshal(data, out); err != nil {
		return nil, err
	}
	out.GetObjectKind().SetGroupVersionKind(gvk)
	return out, nil
}

// assignInto replaces dst's content with src (converted when the types
// differ), keeping dst's type information: handlers hold dst.
func assignInto(scheme *runtime.Scheme, dst, src runtime.Object) error {
	if du, ok := dst.(*unstructured.Unstructured); ok {
		du.Object = src.(*unstructured.Unstructured).Object
		return nil
	}
	gvk := dst.GetObjectKind().GroupVersionKind()
	if reflect.TypeOf(dst) == reflect.TypeOf(src) {
		reflect.ValueOf(dst).Elem().Set(reflect.ValueOf(src).Elem())
	} else if err := scheme.Convert(src, dst, nil); err != nil {
		return err
	}
	dst.GetObjectKind().SetGroupVersionKind(gvk)
	return nil
}
