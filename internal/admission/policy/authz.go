package policy

import (
	"context"
	"errors"
	"reflect"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

// The authorizer variables: authorizer checks what the requester (or a
// service account) may do; authorizer.requestResource is a check of the
// request's own resource.
const (
	AuthorizerVar      = "authorizer"
	RequestResourceVar = "authorizer.requestResource"
)

// The CEL types of the authorizer library, named as upstream's.
var (
	AuthorizerType    = cel.ObjectType("kubernetes.authorization.Authorizer")
	PathCheckType     = cel.ObjectType("kubernetes.authorization.PathCheck")
	GroupCheckType    = cel.ObjectType("kubernetes.authorization.GroupCheck")
	ResourceCheckType = cel.ObjectType("kubernetes.authorization.ResourceCheck")
	DecisionType      = cel.ObjectType("kubernetes.authorization.Decision")
)

// authzLib is Kubernetes' authorizer library: authorizer.path(p).check(v),
// authorizer.group(g).resource(r)[.subresource(s)][.namespace(n)][.name(x)]
// [.fieldSelector(f)][.labelSelector(l)].check(v),
// authorizer.serviceAccount(ns, name), and allowed(), reason(), errored()
// and error() of a decision.
func authzLib() cel.EnvOption {
	str := cel.StringType
	rc := func(name, overload string, set func(*resourceCheckVal, string)) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload(overload, []*cel.Type{ResourceCheckType, str}, ResourceCheckType,
			cel.BinaryBinding(func(c, v ref.Val) ref.Val {
				r, ok := c.(*resourceCheckVal)
				s, ok2 := v.(types.String)
				if !ok || !ok2 {
					return types.MaybeNoSuchOverloadErr(c)
				}
				n := *r
				set(&n, string(s))
				return &n
			})))
	}
	return cel.Lib(&library{opts: []cel.EnvOption{
		cel.Function("path", cel.MemberOverload("authorizer_path", []*cel.Type{AuthorizerType, str}, PathCheckType,
			cel.BinaryBinding(func(a, p ref.Val) ref.Val {
				az, ok := a.(*authzVal)
				s, ok2 := p.(types.String)
				if !ok || !ok2 {
					return types.MaybeNoSuchOverloadErr(a)
				}
				if strings.TrimSpace(string(s)) == "" {
					return types.NewErr("path must not be empty")
				}
				return &pathCheckVal{a: az, path: string(s)}
			}))),
		cel.Function("group", cel.MemberOverload("authorizer_group", []*cel.Type{AuthorizerType, str}, GroupCheckType,
			cel.BinaryBinding(func(a, g ref.Val) ref.Val {
				az, ok := a.(*authzVal)
				s, ok2 := g.(types.String)
				if !ok || !ok2 {
					return types.MaybeNoSuchOverloadErr(a)
				}
				return &groupCheckVal{a: az, group: string(s)}
			}))),
		cel.Function("serviceAccount", cel.MemberOverload("authorizer_serviceaccount", []*cel.Type{AuthorizerType, str, str}, AuthorizerType,
			cel.FunctionBinding(func(args ...ref.Val) ref.Val {
				az, ok := args[0].(*authzVal)
				ns, ok2 := args[1].(types.String)
				name, ok3 := args[2].(types.String)
				if !ok || !ok2 || !ok3 {
					return types.MaybeNoSuchOverloadErr(args[0])
				}
				if len(validation.ValidateServiceAccountName(string(name), false)) > 0 {
					return types.NewErr("Invalid service account name")
				}
				if len(validation.ValidateNamespaceName(string(ns), false)) > 0 {
					return types.NewErr("Invalid service account namespace")
				}
				u := &user.DefaultInfo{
					Name:   "system:serviceaccount:" + string(ns) + ":" + string(name),
					Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + string(ns)},
				}
				return &authzVal{ctx: az.ctx, authz: az.authz, user: u}
			}))),
		cel.Function("resource", cel.MemberOverload("groupcheck_resource", []*cel.Type{GroupCheckType, str}, ResourceCheckType,
			cel.BinaryBinding(func(g, r ref.Val) ref.Val {
				gc, ok := g.(*groupCheckVal)
				s, ok2 := r.(types.String)
				if !ok || !ok2 {
					return types.MaybeNoSuchOverloadErr(g)
				}
				if strings.TrimSpace(string(s)) == "" {
					return types.NewErr("resource must not be empty")
				}
				return &resourceCheckVal{a: gc.a, group: gc.group, resource: string(s), version: "*"}
			}))),
		rc("subresource", "resourcecheck_subresource", func(r *resourceCheckVal, s string) { r.subresource = s }),
		rc("namespace", "resourcecheck_namespace", func(r *resourceCheckVal, s string) { r.namespace = s }),
		rc("name", "resourcecheck_name", func(r *resourceCheckVal, s string) { r.name = s }),
		rc("fieldSelector", "authorizer_fieldselector", func(r *resourceCheckVal, s string) { r.fieldSelector = s }),
		rc("labelSelector", "authorizer_labelselector", func(r *resourceCheckVal, s string) { r.labelSelector = s }),
		cel.Function("check",
			cel.MemberOverload("pathcheck_check", []*cel.Type{PathCheckType, str}, DecisionType,
				cel.BinaryBinding(func(p, v ref.Val) ref.Val {
					pc, ok := p.(*pathCheckVal)
					s, ok2 := v.(types.String)
					if !ok || !ok2 {
						return types.MaybeNoSuchOverloadErr(p)
					}
					return pc.a.check(authorizer.Attributes{Verb: string(s), Path: pc.path})
				})),
			cel.MemberOverload("resourcecheck_check", []*cel.Type{ResourceCheckType, str}, DecisionType,
				cel.BinaryBinding(func(c, v ref.Val) ref.Val {
					r, ok := c.(*resourceCheckVal)
					s, ok2 := v.(types.String)
					if !ok || !ok2 {
						return types.MaybeNoSuchOverloadErr(c)
					}
					return r.a.check(r.attributes(string(s)))
				}))),
		cel.Function("allowed", cel.MemberOverload("decision_allowed", []*cel.Type{DecisionType}, cel.BoolType,
			cel.UnaryBinding(func(d ref.Val) ref.Val {
				return decisionField(d, func(x *decisionVal) ref.Val { return types.Bool(x.decision == authorizer.DecisionAllow) })
			}))),
		cel.Function("reason", cel.MemberOverload("decision_reason", []*cel.Type{DecisionType}, cel.StringType,
			cel.UnaryBinding(func(d ref.Val) ref.Val {
				return decisionField(d, func(x *decisionVal) ref.Val { return types.String(x.reason) })
			}))),
		cel.Function("errored", cel.MemberOverload("decision_errored", []*cel.Type{DecisionType}, cel.BoolType,
			cel.UnaryBinding(func(d ref.Val) ref.Val {
				return decisionField(d, func(x *decisionVal) ref.Val { return types.Bool(x.err != nil) })
			}))),
		cel.Function("error", cel.MemberOverload("decision_error", []*cel.Type{DecisionType}, cel.StringType,
			cel.UnaryBinding(func(d ref.Val) ref.Val {
				return decisionField(d, func(x *decisionVal) ref.Val {
					if x.err == nil {
						return types.String("")
					}
					return types.String(x.err.Error())
				})
			}))),
	}})
}

type library struct{ opts []cel.EnvOption }

func (l *library) CompileOptions() []cel.EnvOption     { return l.opts }
func (l *library) ProgramOptions() []cel.ProgramOption { return nil }

func decisionField(d ref.Val, f func(*decisionVal) ref.Val) ref.Val {
	x, ok := d.(*decisionVal)
	if !ok {
		return types.MaybeNoSuchOverloadErr(d)
	}
	return f(x)
}

// Authorizer is the authorizer variable for a request by u.
func Authorizer(ctx context.Context, a authorizer.Authorizer, u user.Info) ref.Val {
	return &authzVal{ctx: ctx, authz: a, user: u}
}

// RequestResourceCheck is authorizer.requestResource: a check of the
// request's own group, resource, subresource, namespace and name. As
// upstream it checks every version ("*"), whatever version was asked
// for; version is kept for callers and not used.
func RequestResourceCheck(az ref.Val, group, version, resource, subresource, namespace, name string) ref.Val {
	a, _ := az.(*authzVal)
	_ = version
	return &resourceCheckVal{a: a, group: group, version: "*", resource: resource, subresource: subresource, namespace: namespace, name: name}
}

type authzVal struct {
	ctx   context.Context
	authz authorizer.Authorizer
	user  user.Info
}

func (a *authzVal) check(attrs authorizer.Attributes) ref.Val {
	if a == nil || a.authz == nil {
		return &decisionVal{decision: authorizer.DecisionNoOpinion, err: errors.New("no authorizer")}
	}
	attrs.User = a.user
	d, reason, err := a.authz.Authorize(a.ctx, attrs)
	return &decisionVal{decision: d, reason: reason, err: err}
}

type pathCheckVal struct {
	a    *authzVal
	path string
}

type groupCheckVal struct {
	a     *authzVal
	group string
}

type resourceCheckVal struct {
	a                                                      *authzVal
	group, version, resource, subresource, namespace, name string
	fieldSelector, labelSelector                           string
}

// attributes are the check of verb; a selector that does not parse is
// passed on as its parsing error, without requirements, as upstream.
func (r *resourceCheckVal) attributes(verb string) authorizer.Attributes {
	attrs := authorizer.Attributes{
		Verb: verb, ResourceRequest: true, APIGroup: r.group, APIVersion: r.version,
		Resource: r.resource, Subresource: r.subresource, Namespace: r.namespace, Name: r.name,
	}
	if r.fieldSelector != "" {
		if sel, err := fields.ParseSelector(r.fieldSelector); err != nil {
			attrs.FieldSelectorParsingErr = err
		} else {
			attrs.FieldSelectorRequirements = sel.Requirements()
		}
	}
	if r.labelSelector != "" {
		attrs.LabelSelectorRequirements, attrs.LabelSelectorParsingErr = labels.ParseToRequirements(r.labelSelector)
	}
	return attrs
}

type decisionVal struct {
	decision authorizer.Decision
	reason   string
	err      error
}

func opaqueConvert(ref.Val, reflect.Type) (any, error) {
	return nil, errors.New("authorizer values cannot be converted to native values")
}

func (a *authzVal) ConvertToNative(t reflect.Type) (any, error) { return opaqueConvert(a, t) }
func (a *authzVal) ConvertToType(ref.Type) ref.Val {
	return types.NewErr("type conversion not allowed")
}
func (a *authzVal) Equal(o ref.Val) ref.Val { return types.Bool(o == ref.Val(a)) }
func (a *authzVal) Type() ref.Type          { return AuthorizerType }
func (a *authzVal) Value() any              { return a }

func (p *pathCheckVal) ConvertToNative(t reflect.Type) (any, error) { return opaqueConvert(p, t) }
func (p *pathCheckVal) ConvertToType(ref.Type) ref.Val {
	return types.NewErr("type conversion not allowed")
}
func (p *pathCheckVal) Equal(o ref.Val) ref.Val { return types.Bool(o == ref.Val(p)) }
func (p *pathCheckVal) Type() ref.Type          { return PathCheckType }
func (p *pathCheckVal) Value() any              { return p }

func (g *groupCheckVal) ConvertToNative(t reflect.Type) (any, error) { return opaqueConvert(g, t) }
func (g *groupCheckVal) ConvertToType(ref.Type) ref.Val {
	return types.NewErr("type conversion not allowed")
}
func (g *groupCheckVal) Equal(o ref.Val) ref.Val { return types.Bool(o == ref.Val(g)) }
func (g *groupCheckVal) Type() ref.Type          { return GroupCheckType }
func (g *groupCheckVal) Value() any              { return g }

func (r *resourceCheckVal) ConvertToNative(t reflect.Type) (any, error) { return opaqueConvert(r, t) }
func (r *resourceCheckVal) ConvertToType(ref.Type) ref.Val {
	return types.NewErr("type conversion not allowed")
}
func (r *resourceCheckVal) Equal(o ref.Val) ref.Val { return types.Bool(o == ref.Val(r)) }
func (r *resourceCheckVal) Type() ref.Type          { return ResourceCheckType }
func (r *resourceCheckVal) Value() any              { return r }

func (d *decisionVal) ConvertToNative(t reflect.Type) (any, error) { return opaqueConvert(d, t) }
func (d *decisionVal) ConvertToType(ref.Type) ref.Val {
	return types.NewErr("type conversion not allowed")
}
func (d *decisionVal) Equal(o ref.Val) ref.Val { return types.Bool(o == ref.Val(d)) }
func (d *decisionVal) Type() ref.Type          { return DecisionType }
func (d *decisionVal) Value() any              { return d }
