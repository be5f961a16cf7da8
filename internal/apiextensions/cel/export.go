package cel

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types/ref"

	"github.com/kapi-dev/kapi/internal/apiextensions/schema"
)

// BaseEnv is the environment every Kubernetes CEL expression starts from
// (the standard library and the Kubernetes libraries); admission policies
// extend it with their own variables. It is built once and immutable.
func BaseEnv() (*cel.Env, error) { return baseEnv() }

// ProgramOptions limit every evaluation to PerCallLimit and track its
// actual cost as upstream counts it.
func ProgramOptions() []cel.ProgramOption { return programOptions() }

// ActualCost is the runtime cost of the calls the Kubernetes libraries
// price (nil for the others: cel-go's defaults), for environments that
// add libraries of their own and price those first.
func ActualCost(function, overloadID string, args []ref.Val, result ref.Val) *uint64 {
	return actualCost{}.CallCost(function, overloadID, args, result)
}

// CheckFrequency is how many comprehension steps an evaluation takes
// between checks of its context, for callers that set up their own
// execution frames.
const CheckFrequency = checkFrequency

// TypedEnv extends env with the object types a structural schema declares
// and returns the CEL type of its root (named rootName), for type checking
// expressions against a resource's schema (admission policy type
// checking). The root is treated as a resource root (apiVersion, kind and
// metadata.name/generateName are declared). ok is false when the schema
// exposes nothing to CEL.
func TypedEnv(env *cel.Env, s *schema.Structural, rootName string) (*cel.Env, *cel.Type, bool, error) {
	b := &declBuilder{objects: map[string]*declNode{}}
	root := b.build(s, true, rootName)
	if root == nil {
		return env, nil, false, nil
	}
	ext, err := env.Extend(cel.CustomTypeProvider(&provider{Provider: env.CELTypeProvider(), objects: b.objects}))
	if err != nil {
		return nil, nil, false, err
	}
	return ext, root.celType, true, nil
}
