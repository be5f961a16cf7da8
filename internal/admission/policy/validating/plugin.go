package validating

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	admissionregistrationinformers "k8s.io/client-go/informers/admissionregistration/v1"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/admission/policy"
	"github.com/kapi-dev/kapi/internal/audit"
	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/endpoints/warning"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "ValidatingAdmissionPolicy"

// Upstream's audit annotation of Audit actions and its limits.
const (
	validationFailureAnnotation   = "validation.policy.admission.k8s.io/validation_failure"
	maxValidationFailures         = 50
	maxAuditAnnotationValueLength = 10 * 1024
)

// Plugin is the ValidatingAdmissionPolicy admission plugin.
type Plugin struct {
	source  *source
	matcher *policy.Matcher
	scheme  *runtime.Scheme
	params  policy.ParamSource
	// Authorizer backs the authorizer variable; nil leaves it undefined
	// (expressions using it fail).
	Authorizer authorizer.Authorizer
}

var _ admission.ValidationInterface = (*Plugin)(nil)

// New builds the plugin over the policy and binding informers (which the
// caller starts); namespaces finds namespaces for namespaceSelector and
// namespaceObject, params finds parameter objects (nil: paramKind is
// refused as not known).
func New(pi admissionregistrationinformers.ValidatingAdmissionPolicyInformer, bi admissionregistrationinformers.ValidatingAdmissionPolicyBindingInformer, namespaces policy.NamespaceGetter, params policy.ParamSource) (*Plugin, error) {
	s, err := newSource(pi, bi)
	if err != nil {
		return nil, err
	}
	return &Plugin{source: s, matcher: &policy.Matcher{Namespaces: namespaces}, params: params}, nil
}

type deniedDecision struct {
	policy, binding string
	message         string
	reason          metav1.StatusReason
}

type validationFailure struct {
	Message           string                                     `json:"message"`
	Policy            string                                     `json:"policy"`
	Binding           string                                     `json:"binding"`
	ExpressionIndex   int                                        `json:"expressionIndex"`
	ValidationActions []admissionregistrationv1.ValidationAction `json:"validationActions"`
}

// request holds what the evaluations of one request share; each part
// is computed on first need. It is the evaluations' policy.LazyVars.
type request struct {
	// a is the request as matched (objects converted under matchPolicy
	// Equivalent); orig the request itself.
	a, orig  *admission.Attributes
	match    policy.Match
	prepared bool
	input    policy.Input
	nsLoaded bool
	ns       *corev1.Namespace
	ctx      context.Context
	az       authorizer.Authorizer
	reqVal   ref.Val
	nsVal    ref.Val
	authzVal ref.Val
}

func (r *request) prepare(ctx context.Context, az authorizer.Authorizer) {
	if r.prepared {
		return
	}
	r.prepared = true
	r.ctx, r.az = ctx, az
	r.input.Object = policy.NativeObject(r.a.Object, r.a.Kind)
	r.input.OldObject = policy.NativeObject(r.a.OldObject, r.a.Kind)
	r.input.Lazy = r
}

// RequestVal implements policy.LazyVars.
func (r *request) RequestVal() ref.Val {
	if r.reqVal == nil {
		r.reqVal = types.NewStringInterfaceMap(types.DefaultTypeAdapter, policy.RequestFor(r.orig, r.match))
	}
	return r.reqVal
}

// NamespaceVal implements policy.LazyVars.
func (r *request) NamespaceVal() ref.Val {
	if r.nsVal == nil {
		r.nsVal = types.NullValue
		if r.ns != nil {
			m, err := policy.NamespaceObject(r.ns)
			if err != nil {
				r.nsVal = types.NewErr("%v", err)
			} else {
				r.nsVal = types.NewStringInterfaceMap(types.DefaultTypeAdapter, m)
			}
		}
	}
	return r.nsVal
}

// AuthorizerVal implements policy.LazyVars.
func (r *request) AuthorizerVal() (ref.Val, bool) {
	if r.az == nil {
		return nil, false
	}
	if r.authzVal == nil {
		r.authzVal = policy.Authorizer(r.ctx, r.az, r.a.UserInfo)
	}
	return r.authzVal, true
}

// RequestResourceVal implements policy.LazyVars.
func (r *request) RequestResourceVal() (ref.Val, bool) {
	authz, ok := r.AuthorizerVal()
	if !ok {
		return nil, false
	}
	a := r.orig
	return policy.RequestResourceCheck(authz, a.Resource.Group, a.Resource.Version, a.Resource.Resource, a.Subresource, a.Namespace, a.Name), true
}

// Validate implements admission.ValidationInterface.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	if policy.Exempt(a.Resource.GroupResource()) {
		return nil
	}
	hooks, err := p.source.hooks(ctx)
	if err != nil {
		return policy.Denied(a, err.Error(), metav1.StatusReasonForbidden)
	}
	if len(hooks) == 0 {
		return nil
	}
	var denied []deniedDecision
	var failures []validationFailure
	configError := func(h *hook, b *admissionregistrationv1.ValidatingAdmissionPolicyBinding, err error) {
		switch h.compiled.failurePolicy {
		case admissionregistrationv1.Ignore:
			return
		case admissionregistrationv1.Fail:
			d := deniedDecision{policy: h.policy.Name, message: fmt.Sprintf("failed to configure policy: %v", err)}
			if b != nil {
				d.binding, d.message = b.Name, fmt.Sprintf("failed to configure binding: %v", err)
			}
			denied = append(denied, d)
		default:
			d := deniedDecision{policy: h.policy.Name, message: fmt.Sprintf("unrecognized failure policy: '%v'", h.compiled.failurePolicy)}
			if b != nil {
				d.binding = b.Name
			}
			denied = append(denied, d)
		}
	}
	var reqs []*request
	for i := range hooks {
		h := &hooks[i]
		pm, err := p.matcher.MatchFor(ctx, a, h.policy.Spec.MatchConstraints)
		if err != nil {
			configError(h, nil, err)
			continue
		}
		if !pm.OK {
			continue
		}
		if h.compiled.err != nil {
			configError(h, nil, h.compiled.err)
			continue
		}
		annotations := map[string][]string{}
		var annotationKeys []string
		for _, b := range h.bindings {
			ok, err := p.matcher.Matches(ctx, a, b.Spec.MatchResources)
			if err != nil {
				configError(h, b, err)
				continue
			}
			if !ok {
				continue
			}
			params, err := policy.CollectParams(ctx, p.params, h.policy.Spec.ParamKind, b.Spec.ParamRef, a.Namespace)
			if err != nil {
				configError(h, b, err)
				continue
			}
			if len(params) == 0 {
				continue
			}
			req, err := p.requestFor(&reqs, a, pm)
			if err != nil {
				return err
			}
			req.prepare(ctx, p.Authorizer)
			if err := p.loadNamespace(ctx, req); err != nil {
				return err
			}
			for _, param := range params {
				in := req.input
				in.Params, in.HasParams = param, h.policy.Spec.ParamKind != nil
				res := h.compiled.validate(ctx, &in)
				for _, d := range res.decisions {
					for _, action := range b.Spec.ValidationActions {
						switch action {
						case admissionregistrationv1.Deny:
							denied = append(denied, deniedDecision{policy: h.policy.Name, binding: b.Name, message: d.message, reason: d.reason})
						case admissionregistrationv1.Warn:
							warning.AddWarning(ctx, "", fmt.Sprintf("Validation failed for ValidatingAdmissionPolicy '%s' with binding '%s': %s", h.policy.Name, b.Name, d.message))
						case admissionregistrationv1.Audit:
							failures = append(failures, validationFailure{Message: d.message, Policy: h.policy.Name, Binding: b.Name, ExpressionIndex: d.index, ValidationActions: b.Spec.ValidationActions})
						}
					}
				}
				for _, r := range res.audits {
					switch r.action {
					case auditPublish:
						v := r.value
						if len(v) > maxAuditAnnotationValueLength {
							v = v[:maxAuditAnnotationValueLength]
						}
						if _, seen := annotations[r.key]; !seen {
							annotationKeys = append(annotationKeys, r.key)
						}
						if !contains(annotations[r.key], v) {
							annotations[r.key] = append(annotations[r.key], v)
						}
					case auditError:
						denied = append(denied, deniedDecision{policy: h.policy.Name, binding: b.Name, message: r.value})
					}
				}
			}
		}
		for _, k := range annotationKeys {
			audit.AddAnnotation(ctx, h.policy.Name+"/"+k, strings.Join(annotations[k], ", "))
		}
	}
	if len(failures) > 0 {
		if len(failures) > maxValidationFailures {
			failures = failures[:maxValidationFailures]
		}
		if v, err := json.Marshal(failures); err == nil {
			audit.AddAnnotation(ctx, validationFailureAnnotation, string(v))
		}
	}
	if len(denied) == 0 {
		return nil
	}
	d := denied[0]
	msg := fmt.Sprintf("ValidatingAdmissionPolicy '%s' denied request: %s", d.policy, d.message)
	if d.binding != "" {
		msg = fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s", d.policy, d.binding, d.message)
	}
	return policy.Denied(a, msg, d.reason)
}

// requestFor is the shared state of the evaluations that see a as
// matched by m, made on first need.
func (p *Plugin) requestFor(reqs *[]*request, a *admission.Attributes, m policy.Match) (*request, error) {
	for _, r := range *reqs {
		if r.match == m {
			return r, nil
		}
	}
	ma, err := policy.AsMatched(a, m, p.scheme)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	r := &request{a: ma, orig: a, match: m}
	*reqs = append(*reqs, r)
	return r, nil
}

// MatchEquivalents makes matchPolicy Equivalent match the resources
// mapper finds equivalent, the objects converted through scheme.
func (p *Plugin) MatchEquivalents(mapper policy.EquivalentMapper, scheme *runtime.Scheme) {
	p.matcher.Equivalents, p.scheme = mapper, scheme
}

// loadNamespace fills namespaceObject for a namespaced request (not for a
// Namespace itself); a namespace that cannot be read fails the request,
// as upstream.
func (p *Plugin) loadNamespace(ctx context.Context, r *request) error {
	if r.nsLoaded {
		return nil
	}
	r.nsLoaded = true
	a := r.a
	if a.Namespace == "" || (a.Kind.Group == "" && a.Kind.Version == "v1" && a.Kind.Kind == "Namespace") || p.matcher.Namespaces == nil {
		return nil
	}
	ns, err := p.matcher.Namespaces(ctx, a.Namespace)
	if err != nil {
		return err
	}
	r.ns = ns
	return nil
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
