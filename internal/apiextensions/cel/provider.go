package cel

import (
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"
)

// provider answers the checker's questions about the object types derived
// from the schema and defers everything else to the base registry.
type provider struct {
	types.Provider
	objects map[string]*declNode
}

func (p *provider) FindStructType(name string) (*types.Type, bool) {
	if _, ok := p.objects[name]; ok {
		return types.NewTypeTypeWithParam(types.NewObjectType(name)), true
	}
	return p.Provider.FindStructType(name)
}

func (p *provider) FindStructFieldNames(name string) ([]string, bool) {
	n, ok := p.objects[name]
	if !ok {
		return p.Provider.FindStructFieldNames(name)
	}
	out := make([]string, 0, len(n.fields))
	for k := range n.fields {
		out = append(out, k)
	}
	return out, true
}

// FindStructFieldType leaves GetFrom unset so field selection goes through
// the runtime value's map lookup (absent fields are "no such key").
func (p *provider) FindStructFieldType(name, fieldName string) (*types.FieldType, bool) {
	n, ok := p.objects[name]
	if !ok {
		return p.Provider.FindStructFieldType(name, fieldName)
	}
	f, ok := n.fields[fieldName]
	if !ok {
		return nil, false
	}
	return &types.FieldType{Type: f.node.celType}, true
}

// sizeEstimator bounds the size of values reached from self (or oldSelf)
// by the schema's element limits, for the static cost estimate.
type sizeEstimator struct {
	root *declNode
}

func (e *sizeEstimator) EstimateSize(element checker.AstNode) *checker.SizeEstimate {
	path := element.Path()
	if len(path) == 0 {
		return nil
	}
	n := e.root
	for _, name := range path[1:] {
		switch name {
		case "@items", "@values":
			if n.elem == nil {
				return nil
			}
			n = n.elem
		case "@keys":
			if n.kind != kindMap {
				return nil
			}
			return &checker.SizeEstimate{Min: 0, Max: 0}
		default:
			f, ok := n.fields[name]
			if !ok {
				return nil
			}
			n = f.node
		}
	}
	return &checker.SizeEstimate{Min: 0, Max: uint64(n.maxElements)}
}

func (e *sizeEstimator) EstimateCallCost(function, overloadID string, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	return estimateLibraryCallCost(e, function, target, args)
}
