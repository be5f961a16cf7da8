package policy

import (
	"encoding/base64"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"k8s.io/apimachinery/pkg/runtime"
)

// The types mutation expressions build: Object (and Object.<path> for its
// nested values) for apply configurations, JSONPatch for JSON patches.
const (
	ObjectTypeName    = "Object"
	JSONPatchTypeName = "JSONPatch"
)

var (
	// ApplyConfigurationType is what an applyConfiguration expression
	// must evaluate to.
	ApplyConfigurationType = cel.ObjectType(ObjectTypeName)
	// JSONPatchListType is what a jsonPatch expression must evaluate to.
	JSONPatchListType = cel.ListType(cel.ObjectType(JSONPatchTypeName))
)

// mutationProvider declares Object.* types with fields of any name and
// type, and JSONPatch with op, path, from and value; values built of
// them are maps.
type mutationProvider struct {
	types.Provider
}

var jsonPatchFields = map[string]*types.Type{"op": types.StringType, "path": types.StringType, "from": types.StringType, "value": types.DynType}

func isObjectType(name string) bool {
	return name == ObjectTypeName || strings.HasPrefix(name, ObjectTypeName+".")
}

func (p *mutationProvider) FindStructType(name string) (*types.Type, bool) {
	if isObjectType(name) || name == JSONPatchTypeName {
		return types.NewTypeTypeWithParam(types.NewObjectType(name)), true
	}
	return p.Provider.FindStructType(name)
}

func (p *mutationProvider) FindStructFieldNames(name string) ([]string, bool) {
	if isObjectType(name) {
		return nil, true
	}
	if name == JSONPatchTypeName {
		return []string{"op", "path", "from", "value"}, true
	}
	return p.Provider.FindStructFieldNames(name)
}

func (p *mutationProvider) FindStructFieldType(name, field string) (*types.FieldType, bool) {
	if isObjectType(name) {
		return &types.FieldType{Type: types.DynType}, true
	}
	if name == JSONPatchTypeName {
		t, ok := jsonPatchFields[field]
		if !ok {
			return nil, false
		}
		return &types.FieldType{Type: t}, true
	}
	return p.Provider.FindStructFieldType(name, field)
}

func (p *mutationProvider) NewValue(name string, fields map[string]ref.Val) ref.Val {
	if isObjectType(name) || name == JSONPatchTypeName {
		m := make(map[ref.Val]ref.Val, len(fields))
		for k, v := range fields {
			m[types.String(k)] = v
		}
		return &builtVal{Mapper: types.NewRefValMap(nativeAdapter, m).(traits.Mapper), typeName: name}
	}
	return p.Provider.NewValue(name, fields)
}

// builtVal is an Object or JSONPatch value: a map that knows its type.
type builtVal struct {
	traits.Mapper
	typeName string
}

func (b *builtVal) Type() ref.Type { return types.NewObjectType(b.typeName) }

// MutationEnv is Env with the Object and JSONPatch types and
// jsonpatch.escapeKey, for mutation expressions.
func MutationEnv(opts EnvOptions) (*cel.Env, error) {
	key := mutationEnvKey{opts}
	if e, ok := envs.Load(key); ok {
		return e.(*cel.Env), nil
	}
	base, err := Env(opts)
	if err != nil {
		return nil, err
	}
	e, err := base.Extend(
		cel.CustomTypeProvider(&mutationProvider{Provider: base.CELTypeProvider()}),
		cel.Function("jsonpatch.escapeKey", cel.Overload("string_jsonpatch_escape_key_string", []*cel.Type{cel.StringType}, cel.StringType,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				s, ok := v.(types.String)
				if !ok {
					return types.MaybeNoSuchOverloadErr(v)
				}
				return types.String(strings.NewReplacer("~", "~0", "/", "~1").Replace(string(s)))
			}))),
	)
	if err != nil {
		return nil, fmt.Errorf("environment misconfigured: %w", err)
	}
	envs.Store(key, e)
	return e, nil
}

type mutationEnvKey struct{ EnvOptions }

// ToJSON converts a CEL value to JSON-like data (map[string]any, []any,
// string, int64, float64, bool, nil).
func ToJSON(v ref.Val) (any, error) {
	switch t := v.(type) {
	case types.Null:
		return nil, nil
	case types.String:
		return string(t), nil
	case types.Int:
		return int64(t), nil
	case types.Uint:
		return int64(t), nil
	case types.Double:
		return float64(t), nil
	case types.Bool:
		return bool(t), nil
	case types.Bytes:
		return base64.StdEncoding.EncodeToString(t), nil
	case types.Timestamp:
		return t.Time.UTC().Format(time.RFC3339), nil
	case types.Duration:
		return t.Duration.String(), nil
	case *structVal:
		p := t.v
		if p.CanAddr() {
			p = p.Addr()
		} else {
			c := reflect.New(p.Type())
			c.Elem().Set(p)
			p = c
		}
		return runtime.DefaultUnstructuredConverter.ToUnstructured(p.Interface())
	case traits.Mapper:
		out := map[string]any{}
		it := t.Iterator()
		for it.HasNext() == types.True {
			k := it.Next()
			ks, ok := k.(types.String)
			if !ok {
				return nil, fmt.Errorf("map key %v is not a string", k)
			}
			x, err := ToJSON(t.Get(k))
			if err != nil {
				return nil, err
			}
			out[string(ks)] = x
		}
		return out, nil
	case traits.Lister:
		n := int(t.Size().(types.Int))
		out := make([]any, 0, n)
		for i := 0; i < n; i++ {
			x, err := ToJSON(t.Get(types.Int(i)))
			if err != nil {
				return nil, err
			}
			out = append(out, x)
		}
		return out, nil
	}
	if types.IsError(v) {
		return nil, v.(*types.Err)
	}
	return nil, fmt.Errorf("value of type %v cannot be converted to JSON", v.Type())
}
