package cel

import (
	"sort"
	"strings"

	"github.com/google/cel-go/cel"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apiextensions/schema"
)

// rootTypeName names the root object type; nested objects are named by
// their path below it (Object.spec, Object.spec.items.@idx, ...).
const rootTypeName = "Object"

// Validator evaluates the compiled rules of one CRD version's schema. It
// is immutable and safe for concurrent use.
type Validator struct {
	root *nodeValidator
}

// nodeValidator holds the rules of one schema node and the validators of
// the descendants that have rules.
type nodeValidator struct {
	schemaType string
	decl       *declNode
	// initErr is set when the node's rules cannot be compiled at all.
	initErr string
	rules   []compiledRule

	props       []propValidator // sorted by name
	items       *nodeValidator
	additional  *nodeValidator
	listType    string
	listMapKeys []string
	mapType     string
}

type propValidator struct {
	name string
	v    *nodeValidator
}

// compiledRule is one x-kubernetes-validations entry, compiled.
type compiledRule struct {
	rule        apiextv1.ValidationRule
	prog        cel.Program
	errDetail   string // compile error; prog is nil
	usesOldSelf bool
	optional    bool
	msgProg     cel.Program
	msgErr      string
	// fieldPath is the normalized fieldPath, "" when unset or invalid.
	fieldPath   string
	fieldPathOK bool

	maxCost, msgMaxCost, maxCardinality uint64
}

// compiler carries what the walk over a schema shares.
type compiler struct {
	env *cel.Env
	// visit, when set, sees each node's compiled rules with the node's
	// schema path, its cardinality (nil: unbounded) and the path of the
	// nearest ancestor oldSelf cannot be correlated through.
	visit func(s *schema.Structural, n *nodeValidator, path *field.Path, card *uint64, uncorrelatable *field.Path)
}

// Compile compiles every rule of s (recursively) once; the result is cached
// by the caller per CRD version and shared by all requests (it is safe for
// concurrent use). It returns nil and no error when s has no rules anywhere.
// Rules that fail to compile are reported by Validate on every object, as
// upstream does; CompileErrors reports them when the CRD is written.
func Compile(s *schema.Structural) (*Validator, error) {
	root, err := compileSchema(s, nil, nil)
	if err != nil || root == nil {
		return nil, err
	}
	return &Validator{root: root}, nil
}

func compileSchema(s *schema.Structural, fldPath *field.Path, visit func(*schema.Structural, *nodeValidator, *field.Path, *uint64, *field.Path)) (*nodeValidator, error) {
	if !hasRules(s) {
		return nil, nil
	}
	base, err := baseEnv()
	if err != nil {
		return nil, err
	}
	b := &declBuilder{objects: map[string]*declNode{}}
	rootDecl := b.build(s, true, rootTypeName)
	env, err := base.Extend(cel.CustomTypeProvider(&provider{Provider: base.CELTypeProvider(), objects: b.objects}))
	if err != nil {
		return nil, err
	}
	c := &compiler{env: env, visit: visit}
	one := uint64(1)
	return c.node(s, rootDecl, fldPath, &one, nil), nil
}

func hasRules(s *schema.Structural) bool {
	if s == nil {
		return false
	}
	if len(s.XValidations) > 0 || hasRules(s.Items) {
		return true
	}
	if s.AdditionalProperties != nil && hasRules(s.AdditionalProperties.Structural) {
		return true
	}
	for _, p := range s.Properties {
		if hasRules(p) {
			return true
		}
	}
	return false
}

// node compiles s and its descendants; nil when there is nothing to run.
func (c *compiler) node(s *schema.Structural, d *declNode, path *field.Path, card *uint64, uncorrelatable *field.Path) *nodeValidator {
	if !hasRules(s) {
		return nil
	}
	n := &nodeValidator{schemaType: s.Type, decl: d, listType: s.XListType, listMapKeys: s.XListMapKeys, mapType: s.XMapType}
	if len(s.XValidations) > 0 {
		c.compileRules(s, n)
		if c.visit != nil {
			c.visit(s, n, path, card, uncorrelatable)
		}
	}
	childUncorrelatable := uncorrelatable
	if childUncorrelatable == nil && !mapIsCorrelatable(s.XMapType) {
		childUncorrelatable = path
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		var pd *declNode
		if d != nil {
			if esc, ok := escapeName(name); ok && d.fields[esc] != nil {
				pd = d.fields[esc].node
			}
		}
		if v := c.node(s.Properties[name], pd, path.Child("properties").Key(name), card, childUncorrelatable); v != nil {
			n.props = append(n.props, propValidator{name: name, v: v})
		}
	}
	var elem *declNode
	if d != nil {
		elem = d.elem
	}
	if s.AdditionalProperties != nil {
		n.additional = c.node(s.AdditionalProperties.Structural, elem, path.Child("additionalProperties"), timesBound(card, s.MaxProperties), childUncorrelatable)
	}
	if s.Items != nil {
		itemsUncorrelatable := uncorrelatable
		if itemsUncorrelatable == nil && s.XListType != "map" {
			itemsUncorrelatable = path
		}
		n.items = c.node(s.Items, elem, path.Child("items"), timesBound(card, s.MaxItems), itemsUncorrelatable)
	}
	return n
}

// timesBound is the cardinality of the elements of a list or map: the
// container's cardinality times its maxItems/maxProperties; nil (unbounded)
// when either is unbounded.
func timesBound(card *uint64, limit *int64) *uint64 {
	if card == nil || limit == nil || *limit < 0 {
		return nil
	}
	n := *card * uint64(*limit)
	if *limit != 0 && n/uint64(*limit) != *card {
		return nil
	}
	return &n
}

func mapIsCorrelatable(mapType string) bool {
	return mapType == "" || mapType == "granular" || mapType == "atomic"
}

func (c *compiler) compileRules(s *schema.Structural, n *nodeValidator) {
	if n.decl == nil {
		n.initErr = "failed to convert to declType for CEL validation rules"
		return
	}
	envs, err := newNodeEnvs(c.env, n.decl)
	if err != nil {
		n.initErr = err.Error()
		return
	}
	est := &sizeEstimator{root: n.decl}
	card := maxCardinality(n.decl.minSize)
	n.rules = make([]compiledRule, len(s.XValidations))
	for i, rule := range s.XValidations {
		r := &n.rules[i]
		r.rule = rule
		r.optional = rule.OptionalOldSelf != nil && *rule.OptionalOldSelf
		r.maxCardinality = card
		env := envs.plain
		if r.optional {
			env = envs.optional
		}
		if strings.TrimSpace(rule.Rule) == "" {
			continue
		}
		compileRule(env, est, r)
		if rule.FieldPath != "" {
			if p, err := validFieldPath(rule.FieldPath, s); err == nil {
				r.fieldPath, r.fieldPathOK = p.String(), true
			}
		}
	}
}

func compileRule(env *cel.Env, est *sizeEstimator, r *compiledRule) {
	ast, iss := env.Compile(r.rule.Rule)
	if iss != nil && iss.Err() != nil {
		r.errDetail = "compilation failed: " + iss.String()
		return
	}
	if ast.OutputType() != cel.BoolType {
		r.errDetail = "cel expression must evaluate to a bool"
		return
	}
	checked, err := cel.AstToCheckedExpr(ast)
	if err != nil {
		r.errDetail = "unexpected compilation error: " + err.Error()
		return
	}
	for _, ref := range checked.GetReferenceMap() {
		if ref.GetName() == oldSelfVar {
			r.usesOldSelf = true
			break
		}
	}
	prog, err := env.Program(ast, programOptions()...)
	if err != nil {
		r.errDetail = "program instantiation failed: " + err.Error()
		return
	}
	cost, err := env.EstimateCost(ast, est)
	if err != nil {
		r.errDetail = "cost estimation failed: " + err.Error()
		return
	}
	r.prog, r.maxCost = prog, cost.Max
	if r.rule.MessageExpression == "" {
		return
	}
	mast, iss := env.Compile(r.rule.MessageExpression)
	if iss != nil && iss.Err() != nil {
		r.msgErr = "messageExpression compilation failed: " + iss.String()
		return
	}
	if mast.OutputType() != cel.StringType {
		r.msgErr = "messageExpression must evaluate to a string"
		return
	}
	mprog, err := env.Program(mast, programOptions()...)
	if err != nil {
		r.msgErr = "messageExpression instantiation failed: " + err.Error()
		return
	}
	mcost, err := env.EstimateCost(mast, est)
	if err != nil {
		r.msgErr = "cost estimation failed for messageExpression: " + err.Error()
		return
	}
	r.msgProg, r.msgMaxCost = mprog, mcost.Max
}

// maxCardinality is how many times a rule can run in the largest request
// when nothing bounds the lists and maps above it.
func maxCardinality(minSize int64) uint64 {
	return uint64(maxRequestSizeBytes / (minSize + 1))
}
