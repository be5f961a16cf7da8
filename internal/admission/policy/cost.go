package policy

import (
	"math"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"

	kcel "github.com/kapi-dev/kapi/internal/apiextensions/cel"
)

// authzCheckCost is what one authorization check costs, as upstream
// prices it: at most two checks fit in one expression's limit
// (kcel.PerCallLimit).
const authzCheckCost = 350_000

// Upstream's price of parsing a selector: a list, a traversal of the
// string, and a struct and a list per requirement, at most one
// requirement per two characters.
const (
	selectorLengthToRequirementCount = 0.5
	costPerRequirement               = common.ListCreateBaseCost + common.StructCreateBaseCost
)

// admissionCost prices the authorizer library's calls as upstream, and
// every other call as the Kubernetes libraries do.
type admissionCost struct{}

func (admissionCost) CallCost(function, overloadID string, args []ref.Val, result ref.Val) *uint64 {
	switch function {
	case "check":
		return uintPtr(authzCheckCost)
	case "serviceAccount", "path", "group", "resource", "subresource", "namespace", "name",
		"allowed", "reason", "error", "errored":
		return uintPtr(1)
	case "fieldSelector", "labelSelector":
		if len(args) >= 2 {
			return uintPtr(selectorCost(sizeOf(args[1])))
		}
	}
	return kcel.ActualCost(function, overloadID, args, result)
}

// selectorCost is the runtime cost of parsing a selector of n bytes.
func selectorCost(n uint64) uint64 {
	parse := uint64(math.Ceil(float64(n) * common.StringTraversalCostFactor))
	requirements := uint64(math.Ceil(float64(n) * selectorLengthToRequirementCount))
	perRequirement := uint64(math.Ceil(float64(requirements) * costPerRequirement))
	return common.ListCreateBaseCost + parse + perRequirement
}

func sizeOf(v ref.Val) uint64 {
	if s, ok := v.(traits.Sizer); ok {
		if n, ok := s.Size().Value().(int64); ok && n > 0 {
			return uint64(n)
		}
		return 0
	}
	return 1
}

func uintPtr(c uint64) *uint64 { return &c }

// programOptions are the Kubernetes program options with the admission
// libraries priced.
func programOptions() []cel.ProgramOption {
	return append(kcel.ProgramOptions(), cel.CostTracking(admissionCost{}))
}
