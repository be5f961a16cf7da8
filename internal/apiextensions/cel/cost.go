package cel

import (
	"math"

	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// Cost limits, as upstream.
const (
	// PerCallLimit is the most a single rule evaluation may cost.
	PerCallLimit = 1_000_000
	// RuntimeCELCostBudget is what all rules together may cost for one
	// object.
	RuntimeCELCostBudget = 10_000_000
	// StaticEstimatedCostLimit is the largest estimated cost of one rule
	// (times how often it can run) a CRD may declare.
	StaticEstimatedCostLimit = 10_000_000
	// StaticEstimatedCRDCostLimit is the largest total estimated cost of
	// all rules of a CRD version.
	StaticEstimatedCRDCostLimit = 100_000_000

	checkFrequency                = 100
	maxEvaluatedMessageSizeBytes  = 5 * 1024
	stringTraversalCostFactor     = 0.1
	regexCostFactorPerPatternByte = 0.25
)

// estimateLibraryCallCost prices the list and regex functions by the sizes
// of their inputs; other calls keep cel-go's defaults.
func estimateLibraryCallCost(e *sizeEstimator, function string, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	if target == nil {
		return nil
	}
	size := func(n checker.AstNode) checker.SizeEstimate {
		if s := n.ComputedSize(); s != nil {
			return *s
		}
		if s := e.EstimateSize(n); s != nil {
			return *s
		}
		return checker.SizeEstimate{Min: 0, Max: math.MaxUint64}
	}
	switch function {
	case "isSorted", "sum", "max", "min", "indexOf", "lastIndexOf":
		sz := size(*target)
		return &checker.CallEstimate{CostEstimate: checker.CostEstimate{Min: 1, Max: sz.Max}}
	case "find", "findAll":
		if len(args) == 0 {
			return nil
		}
		str, pat := size(*target), size(args[0])
		max := uint64(math.Ceil(float64(str.Max) * stringTraversalCostFactor * (1 + float64(pat.Max)*regexCostFactorPerPatternByte)))
		if str.Max == math.MaxUint64 || pat.Max == math.MaxUint64 {
			max = math.MaxUint64
		}
		return &checker.CallEstimate{CostEstimate: checker.CostEstimate{Min: 1, Max: max}}
	}
	return nil
}

// actualCost prices the same calls at run time.
type actualCost struct{}

func (actualCost) CallCost(function, overloadID string, args []ref.Val, result ref.Val) *uint64 {
	var c uint64
	switch function {
	case "isSorted", "sum", "max", "min", "indexOf", "lastIndexOf":
		if len(args) == 0 {
			return nil
		}
		l, ok := args[0].(traits.Lister)
		if !ok {
			return nil
		}
		c = uint64(l.Size().(types.Int))
	case "find", "findAll":
		if len(args) < 2 {
			return nil
		}
		s, ok1 := args[0].(types.String)
		p, ok2 := args[1].(types.String)
		if !ok1 || !ok2 {
			return nil
		}
		c = uint64(math.Ceil(float64(len(s)) * stringTraversalCostFactor * (1 + float64(len(p))*regexCostFactorPerPatternByte)))
	default:
		return nil
	}
	return costOf(c)
}

// costOf is c (at least 1) as CallCost returns it; allocating here, not
// where c is declared, keeps the calls CallCost does not price (nearly
// all) from allocating.
func costOf(c uint64) *uint64 {
	if c == 0 {
		c = 1
	}
	return &c
}
