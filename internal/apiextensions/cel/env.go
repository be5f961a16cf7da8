package cel

import (
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/ext"
	"github.com/google/cel-go/interpreter"

	k8slib "github.com/kapi-dev/kapi/internal/cel/library"
)

const (
	selfVar    = "self"
	oldSelfVar = "oldSelf"
)

// baseEnv is the environment every rule starts from: the CEL standard
// library plus the libraries Kubernetes 1.37 enables for stored
// expressions (lists, regex, and quantity, ip, cidr, url, format, semver
// from internal/cel/library).
// Building it is costly and it is immutable, so it is built once.
var baseEnv = sync.OnceValues(func() (*cel.Env, error) {
	return cel.NewEnv(
		cel.HomogeneousAggregateLiterals(),
		cel.EagerlyValidateDeclarations(true),
		cel.DefaultUTCTimeZone(true),
		cel.CrossTypeNumericComparisons(true),
		cel.OptionalTypes(),
		cel.CostEstimatorOptions(checker.PresenceTestHasCost(false)),
		cel.ASTValidators(
			cel.ValidateDurationLiterals(),
			cel.ValidateTimestampLiterals(),
			cel.ValidateRegexLiterals(),
			cel.ValidateHomogeneousAggregateLiterals(),
		),
		ext.Strings(ext.StringsVersion(2)),
		ext.Sets(),
		ext.TwoVarComprehensions(),
		ext.Lists(ext.ListsVersion(3)),
		listsLib(),
		regexLib(),
		k8slib.All(),
	)
})

// programOptions limit and meter every evaluation.
func programOptions() []cel.ProgramOption {
	return []cel.ProgramOption{
		cel.EvalOptions(cel.OptOptimize, cel.OptTrackCost),
		cel.CostLimit(PerCallLimit),
		cel.CostTracking(actualCost{}),
		cel.CostTrackerOptions(interpreter.PresenceTestHasCost(false)),
		cel.InterruptCheckFrequency(checkFrequency),
	}
}

// nodeEnvs are the environments for the rules of one schema node: self and
// oldSelf of the node's type, and oldSelf optional for optionalOldSelf.
type nodeEnvs struct {
	plain, optional *cel.Env
}

func newNodeEnvs(crdEnv *cel.Env, d *declNode) (*nodeEnvs, error) {
	plain, err := crdEnv.Extend(cel.Variable(selfVar, d.celType), cel.Variable(oldSelfVar, d.celType))
	if err != nil {
		return nil, err
	}
	optional, err := crdEnv.Extend(cel.Variable(selfVar, d.celType), cel.Variable(oldSelfVar, cel.OptionalType(d.celType)))
	if err != nil {
		return nil, err
	}
	return &nodeEnvs{plain: plain, optional: optional}, nil
}
