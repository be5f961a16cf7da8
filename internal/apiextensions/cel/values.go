package cel

import (
	"encoding/base64"
	"fmt"
	"math"
	"reflect"
	"time"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
)

// toVal converts a JSON value (as decoded into unstructured) to the CEL
// value its schema declares. Objects and maps are wrapped lazily so a rule
// only pays for what it reads; a value that does not fit its schema is an
// error value, surfacing when the rule touches it.
func toVal(v any, n *declNode) ref.Val {
	if v == nil {
		if n.nullable {
			return types.NullValue
		}
		return types.NewErr("invalid data, got null for schema with nullable=false")
	}
	switch n.kind {
	case kindIntOrString:
		if s, ok := v.(string); ok {
			return types.String(s)
		}
		if i, ok := toInt(v); ok {
			return types.Int(i)
		}
		return types.NewErr("invalid data, expected XIntOrString value to be either a string or integer")
	case kindObject, kindMap:
		m, ok := v.(map[string]any)
		if !ok {
			return types.NewErr("invalid data, expected a map for the provided schema with type=object")
		}
		return &mapVal{m: m, n: n}
	case kindList:
		l, ok := v.([]any)
		if !ok {
			return types.NewErr("invalid data, expected an array for the provided schema with type=array")
		}
		elems := make([]ref.Val, len(l))
		for i, x := range l {
			elems[i] = toVal(x, n.elem)
		}
		return types.NewRefValList(types.DefaultTypeAdapter, elems)
	case kindBool:
		if b, ok := v.(bool); ok {
			return types.Bool(b)
		}
		return types.NewErr("invalid data, expected bool, got %T", v)
	case kindInt:
		if i, ok := toInt(v); ok {
			return types.Int(i)
		}
		return types.NewErr("invalid data, expected int, got %T", v)
	case kindDouble:
		switch x := v.(type) {
		case float64:
			return types.Double(x)
		case float32:
			return types.Double(x)
		case int64:
			return types.Double(x)
		case int:
			return types.Double(x)
		case int32:
			return types.Double(x)
		}
		return types.NewErr("invalid data, expected float, got %T", v)
	}
	str, ok := v.(string)
	if !ok {
		return types.NewErr("invalid data, expected string, got %T", v)
	}
	return stringVal(str, n.kind)
}

func stringVal(str string, k kind) ref.Val {
	switch k {
	case kindDuration:
		d, err := strfmt.ParseDuration(str)
		if err != nil {
			return types.NewErr("Invalid duration %s: %v", str, err)
		}
		return types.Duration{Duration: d}
	case kindDate:
		d, err := time.Parse(strfmt.RFC3339FullDate, str)
		if err != nil {
			return types.NewErr("Invalid date formatted string %s: %v", str, err)
		}
		return types.Timestamp{Time: d}
	case kindDateTime:
		d, err := strfmt.ParseDateTime(str)
		if err != nil {
			return types.NewErr("Invalid date-time formatted string %s: %v", str, err)
		}
		return types.Timestamp{Time: time.Time(d)}
	case kindBytes:
		b, err := base64.StdEncoding.DecodeString(str)
		if err != nil {
			return types.NewErr("Invalid byte formatted string %s: %v", str, err)
		}
		return types.Bytes(b)
	}
	return types.String(str)
}

// toInt accepts the integer representations JSON decoders produce,
// including a float64 holding a whole number.
func toInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case int32:
		return int64(x), true
	case float64:
		if x == math.Trunc(x) && x >= math.MinInt64 && x < math.MaxInt64 {
			return int64(x), true
		}
	}
	return 0, false
}

// mapVal is an object (fields by escaped name; only declared properties are
// visible) or a map (additionalProperties) over an unstructured map.
type mapVal struct {
	m map[string]any
	n *declNode
}

var (
	_ traits.Mapper = (*mapVal)(nil)
	_ traits.Sizer  = (*mapVal)(nil)
)

// lookup finds the raw value and its schema for a CEL key.
func (v *mapVal) lookup(key string) (any, *declNode, bool) {
	if v.n.kind == kindMap {
		x, ok := v.m[key]
		return x, v.n.elem, ok
	}
	f, ok := v.n.fields[key]
	if !ok {
		return nil, nil, false
	}
	x, ok := v.m[f.name]
	return x, f.node, ok
}

// keys are the visible keys, in CEL spelling.
func (v *mapVal) keys() []string {
	out := make([]string, 0, len(v.m))
	if v.n.kind == kindMap {
		for k := range v.m {
			out = append(out, k)
		}
		return out
	}
	for esc, f := range v.n.fields {
		if _, ok := v.m[f.name]; ok {
			out = append(out, esc)
		}
	}
	return out
}

func (v *mapVal) Find(key ref.Val) (ref.Val, bool) {
	k, ok := key.(types.String)
	if !ok {
		return nil, false
	}
	x, n, ok := v.lookup(string(k))
	if !ok {
		return nil, false
	}
	return toVal(x, n), true
}

func (v *mapVal) Get(key ref.Val) ref.Val {
	if x, ok := v.Find(key); ok {
		return x
	}
	return types.NewErr("no such key: %v", key)
}

func (v *mapVal) Contains(key ref.Val) ref.Val {
	_, ok := v.Find(key)
	return types.Bool(ok)
}

func (v *mapVal) Size() ref.Val { return types.Int(len(v.keys())) }

func (v *mapVal) Iterator() traits.Iterator {
	return types.NewStringList(types.DefaultTypeAdapter, v.keys()).(traits.Lister).Iterator()
}

func (v *mapVal) Equal(other ref.Val) ref.Val {
	o, ok := other.(traits.Mapper)
	if !ok {
		return types.False
	}
	if v.Size() != o.Size() {
		return types.False
	}
	for _, k := range v.keys() {
		key := types.String(k)
		ov, found := o.Find(key)
		if !found {
			return types.False
		}
		if eq := v.Get(key).Equal(ov); eq != types.True {
			return eq
		}
	}
	return types.True
}

func (v *mapVal) ConvertToNative(t reflect.Type) (any, error) {
	if reflect.TypeOf(v.m).AssignableTo(t) {
		return v.m, nil
	}
	return nil, fmt.Errorf("type conversion error from map to '%v'", t)
}

func (v *mapVal) ConvertToType(t ref.Type) ref.Val {
	switch {
	case t == types.TypeType:
		return v.n.celType
	case t.TypeName() == v.Type().TypeName():
		return v
	}
	return types.NewErr("type conversion error from '%s' to '%s'", v.Type().TypeName(), t.TypeName())
}

func (v *mapVal) Type() ref.Type {
	if v.n.kind == kindMap {
		return types.MapType
	}
	return v.n.celType
}

func (v *mapVal) Value() any { return v.m }
