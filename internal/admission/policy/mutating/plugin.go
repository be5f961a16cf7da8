package mutating

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	admissionregistrationinformers "k8s.io/client-go/informers/admissionregistration/v1"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/admission/policy"
	"github.com/kapi-dev/kapi/internal/auth/authorizer"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "MutatingAdmissionPolicy"

// TypeConverters give the server-side apply type converter of a kind: the
// built-in kinds' one, or nil for a custom kind (which then merges with a
// schema-less converter: maps merged, lists replaced).
type TypeConverters func(gvk schema.GroupVersionKind) (managedfields.TypeConverter, error)

// Plugin is the MutatingAdmissionPolicy admission plugin.
type Plugin struct {
	source     *source
	matcher    *policy.Matcher
	params     policy.ParamSource
	converters TypeConverters
	scheme     *runtime.Scheme
	// Authorizer backs the authorizer variable; nil leaves it undefined.
	Authorizer authorizer.Authorizer
}

var _ admission.MutationInterface = (*Plugin)(nil)

var deduced = sync.OnceValue(managedfields.NewDeducedTypeConverter)

// New builds the plugin over the policy and binding informers.
func New(pi admissionregistrationinformers.MutatingAdmissionPolicyInformer, bi admissionregistrationinformers.MutatingAdmissionPolicyBindingInformer, namespaces policy.NamespaceGetter, params policy.ParamSource, converters TypeConverters) (*Plugin, error) {
	s, err := newSource(pi, bi)
	if err != nil {
		return nil, err
	}
	return &Plugin{source: s, matcher: &policy.Matcher{Namespaces: namespaces}, params: params, converters: converters}, nil
}

type policyError struct {
	policy, binding string
	err             error
}

func (e policyError) message() string {
	return fmt.Sprintf("policy '%s' with binding '%s' denied request: %s", e.policy, e.binding, e.err.Error())
}

// invocation is one (policy, binding, param) that matched.
type invocation struct {
	h     *hook
	b     *admissionregistrationv1.MutatingAdmissionPolicyBinding
	param map[string]any
	// match is the resource and kind the policy matched the request as.
	match policy.Match
}

// Admit implements admission.MutationInterface: the matching policies'
// mutations are applied in order (policies by name, then bindings by
// name). A change asks the chain for a second round, in which the
// policies with reinvocationPolicy IfNeeded that ran before a change run
// once more. Called outside a chain, it runs as a chain of its own.
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) error {
	if a.Reinvocation == nil {
		return admission.Chain{p}.Admit(ctx, a)
	}
	if a.Object == nil || policy.Exempt(a.Resource.GroupResource()) {
		return nil
	}
	hooks, err := p.source.hooks(ctx)
	if err != nil {
		return policy.Denied(a, err.Error(), metav1.StatusReasonForbidden)
	}
	if len(hooks) == 0 {
		return nil
	}
	var errs []policyError
	var invs []invocation
	for i := range hooks {
		h := &hooks[i]
		pm, err := p.matcher.MatchFor(ctx, a, h.policy.Spec.MatchConstraints)
		if err != nil {
			errs = append(errs, policyError{policy: h.policy.Name, err: err})
			continue
		}
		if !pm.OK {
			continue
		}
		for _, b := range h.bindings {
			ok, err := p.matcher.Matches(ctx, a, b.Spec.MatchResources)
			if err != nil {
				errs = append(errs, policyError{policy: h.policy.Name, binding: b.Name, err: err})
				continue
			}
			if !ok {
				continue
			}
			if h.compiled.err != nil {
				errs = append(errs, policyError{policy: h.policy.Name, binding: b.Name, err: h.compiled.err})
				continue
			}
			params, err := policy.CollectParams(ctx, p.params, h.policy.Spec.ParamKind, b.Spec.ParamRef, a.Namespace)
			if err != nil {
				errs = append(errs, policyError{policy: h.policy.Name, binding: b.Name, err: err})
				continue
			}
			for _, param := range params {
				invs = append(invs, invocation{h: h, b: b, param: param, match: pm})
			}
		}
	}
	if len(invs) > 0 {
		ns, err := p.namespace(ctx, a)
		if err != nil {
			return err
		}
		var se *apierrors.StatusError
		if errs, se = p.invokeAll(ctx, a, ns, invs, errs); se != nil {
			return se
		}
	}
	var failing []policyError
	for _, e := range errs {
		if fp := failurePolicyOf(hooks, e.policy); fp == admissionregistrationv1.Ignore {
			continue
		}
		failing = append(failing, e)
	}
	if len(failing) == 0 {
		return nil
	}
	se := policy.Denied(a, "admission request denied by policy", metav1.StatusReasonForbidden).(*apierrors.StatusError)
	se.ErrStatus.Code = 403
	se.ErrStatus.Message = failing[0].message()
	se.ErrStatus.Reason = metav1.StatusReasonInvalid
	se.ErrStatus.Details.Causes = nil
	for _, e := range failing {
		se.ErrStatus.Details.Causes = append(se.ErrStatus.Details.Causes, metav1.StatusCause{Message: e.message()})
	}
	return se
}

func failurePolicyOf(hooks []hook, name string) admissionregistrationv1.FailurePolicyType {
	for i := range hooks {
		if hooks[i].policy.Name == name {
			return hooks[i].compiled.failurePolicy
		}
	}
	return admissionregistrationv1.Fail
}

func (p *Plugin) namespace(ctx context.Context, a *admission.Attributes) (ref.Val, error) {
	if a.Namespace == "" || (a.Kind.Group == "" && a.Kind.Version == "v1" && a.Kind.Kind == "Namespace") || p.matcher.Namespaces == nil {
		return nil, nil
	}
	ns, err := p.matcher.Namespaces(ctx, a.Namespace)
	if err != nil {
		var se *apierrors.StatusError
		if errors.As(err, &se) {
			return nil, se
		}
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, a.Namespace)
	}
	m, err := policy.NamespaceObject(ns)
	if err != nil {
		return nil, err
	}
	return types.NewStringInterfaceMap(types.DefaultTypeAdapter, m), nil
}

// invoke runs one invocation's mutations on a.Object and reports whether
// the object changed.
// a is the request as matched (see policy.AsMatched), orig the request
// itself.
func (p *Plugin) invoke(ctx context.Context, a, orig *admission.Attributes, ns ref.Val, inv invocation) (bool, *policyError) {
	c := inv.h.compiled
	fail := func(err error) (bool, *policyError) {
		return false, &policyError{policy: inv.h.policy.Name, binding: inv.b.Name, err: err}
	}
	in := func() *policy.Input {
		var az, rr func() ref.Val
		if p.Authorizer != nil {
			az = func() ref.Val { return policy.Authorizer(ctx, p.Authorizer, orig.UserInfo) }
			rr = func() ref.Val {
				return policy.RequestResourceCheck(az(), orig.Resource.Group, orig.Resource.Version, orig.Resource.Resource, orig.Subresource, orig.Namespace, orig.Name)
			}
		}
		return &policy.Input{
			Authorizer: az, RequestResource: rr,
			Object:    policy.NativeObject(a.Object, a.Kind),
			OldObject: policy.NativeObject(a.OldObject, a.Kind),
			Params:    inv.param, HasParams: inv.h.policy.Spec.ParamKind != nil,
			Request: func() ref.Val {
				return types.NewStringInterfaceMap(types.DefaultTypeAdapter, policy.RequestFor(orig, inv.match))
			},
			Namespace: func() ref.Val { return ns },
		}
	}
	if len(c.matchConditions) > 0 {
		ev := policy.NewEvaluation(in(), c.vars, policy.RuntimeCELCostBudgetMatchConditions)
		defer ev.Close()
		var errs []error
		for _, m := range c.matchConditions {
			v, err := ev.Eval(ctx, m)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if v == types.False {
				return false, nil
			}
		}
		if len(errs) > 0 {
			return fail(errors.Join(errs...))
		}
	}
	before := a.Object.DeepCopyObject()
	for _, mu := range c.mutations {
		if mu.expr == nil {
			return fail(fmt.Errorf("unsupported patch type %q", mu.patchType))
		}
		ev := policy.NewEvaluation(in(), c.vars, policy.RuntimeCELCostBudget)
		v, err := ev.Eval(ctx, mu.expr)
		ev.Close()
		if err != nil {
			return fail(err)
		}
		obj, err := policy.ToMap(a.Object, a.Kind)
		if err != nil {
			return fail(err)
		}
		if _, ok := a.Object.(runtime.Unstructured); ok {
			obj = runtime.DeepCopyJSON(obj)
		}
		var out map[string]any
		switch mu.patchType {
		case admissionregistrationv1.PatchTypeApplyConfiguration:
			tc, err := p.converter(a.Kind)
			if err != nil {
				return fail(err)
			}
			out, err = applyConfiguration(tc, obj, a.Kind, v)
			if err != nil {
				return fail(err)
			}
		case admissionregistrationv1.PatchTypeJSONPatch:
			out, err = jsonPatch(obj, v)
			if err != nil {
				return fail(err)
			}
		}
		gvk := a.Object.GetObjectKind().GroupVersionKind()
		if err := writeBack(a.Object, out); err != nil {
			return fail(err)
		}
		if _, ok := a.Object.(runtime.Unstructured); !ok {
			// the server's typed objects do not carry their type
			a.Object.GetObjectKind().SetGroupVersionKind(gvk)
		}
	}
	return !apiequality.Semantic.DeepEqual(before, a.Object), nil
}

func (p *Plugin) converter(gvk schema.GroupVersionKind) (managedfields.TypeConverter, error) {
	if p.converters != nil {
		tc, err := p.converters(gvk)
		if err != nil || tc != nil {
			return tc, err
		}
	}
	return deduced(), nil
}
