package policy

import (
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strings"
	"sync"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Native presents a Go API object to CEL as its JSON form, lazily: a
// field is converted only when an expression reads it, so a policy that
// reads three fields of a Deployment does not pay for converting all of
// it to unstructured. Field names, omitempty, inline members and types
// with their own JSON form (quantities, times, int-or-strings, raw
// extensions) follow encoding/json as runtime.DefaultUnstructuredConverter
// does.
func Native(obj any) ref.Val {
	if obj == nil {
		return types.NullValue
	}
	return nativeVal(reflect.ValueOf(obj))
}

type unstructurer interface{ ToUnstructured() any }

var (
	unstructurerType = reflect.TypeFor[unstructurer]()
	marshalerType    = reflect.TypeFor[json.Marshaler]()
)

func nativeVal(v reflect.Value) ref.Val {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return types.NullValue
		}
		if v.Kind() == reflect.Pointer && jsonFormOf(v.Type()) != plainJSON {
			break
		}
		v = v.Elem()
	}
	if r, ok := customJSON(v); ok {
		return r
	}
	switch v.Kind() {
	case reflect.Struct:
		return &structVal{v: v, info: structInfoOf(v.Type())}
	case reflect.String:
		return types.String(v.String())
	case reflect.Bool:
		return types.Bool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return types.Int(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return types.Int(int64(v.Uint()))
	case reflect.Float32, reflect.Float64:
		return types.Double(v.Float())
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return types.NullValue
		}
		if v.Type().Elem().Kind() == reflect.Uint8 && v.Kind() == reflect.Slice {
			return types.String(base64.StdEncoding.EncodeToString(v.Bytes()))
		}
		elems := make([]ref.Val, v.Len())
		for i := range elems {
			elems[i] = nativeVal(v.Index(i))
		}
		return types.NewRefValList(nativeAdapter, elems)
	case reflect.Map:
		if v.IsNil() {
			return types.NullValue
		}
		if m, ok := v.Interface().(map[string]string); ok {
			return types.NewStringStringMap(nativeAdapter, m)
		}
		m := make(map[ref.Val]ref.Val, v.Len())
		it := v.MapRange()
		for it.Next() {
			m[types.String(it.Key().String())] = nativeVal(it.Value())
		}
		return types.NewRefValMap(nativeAdapter, m)
	}
	return types.NewErr("unsupported value of type %v", v.Type())
}

type jsonForm int

const (
	plainJSON jsonForm = iota
	unstructuredValue
	unstructuredPointer
	marshalerValue
	marshalerPointer
)

var jsonForms sync.Map // reflect.Type → jsonForm

// jsonFormOf says whether t has its own JSON form (cached: Implements is
// slow).
func jsonFormOf(t reflect.Type) jsonForm {
	if f, ok := jsonForms.Load(t); ok {
		return f.(jsonForm)
	}
	f := plainJSON
	switch {
	case t.Implements(unstructurerType):
		f = unstructuredValue
	case reflect.PointerTo(t).Implements(unstructurerType):
		f = unstructuredPointer
	case t.Implements(marshalerType):
		f = marshalerValue
	case reflect.PointerTo(t).Implements(marshalerType):
		f = marshalerPointer
	}
	jsonForms.Store(t, f)
	return f
}

// customJSON converts values with their own JSON form.
func customJSON(v reflect.Value) (ref.Val, bool) {
	var x any
	switch jsonFormOf(v.Type()) {
	case unstructuredValue:
		x = v.Interface().(unstructurer).ToUnstructured()
	case unstructuredPointer:
		if !v.CanAddr() {
			return nil, false
		}
		x = v.Addr().Interface().(unstructurer).ToUnstructured()
	case marshalerValue, marshalerPointer:
		var err error
		if x, err = fromMarshaler(v); err != nil {
			return types.NewErr("%v", err), true
		}
		if _, ok := x.(notAddressable); ok {
			return nil, false
		}
	default:
		return nil, false
	}
	if x == nil {
		return types.NullValue, true
	}
	return types.DefaultTypeAdapter.NativeToValue(x), true
}

// normalizeNumbers turns json's float64 integers into int64, as
// unstructured data holds them.
func normalizeNumbers(x any) any {
	switch t := x.(type) {
	case float64:
		if t == float64(int64(t)) {
			return int64(t)
		}
	case map[string]any:
		for k, v := range t {
			t[k] = normalizeNumbers(v)
		}
	case []any:
		for i, v := range t {
			t[i] = normalizeNumbers(v)
		}
	}
	return x
}

// notAddressable says a pointer-receiver marshaler could not be reached.
type notAddressable struct{}

// fromMarshaler is the JSON form of a json.Marshaler (kept apart: its
// decoding target escapes, and the common path should not allocate).
func fromMarshaler(v reflect.Value) (any, error) {
	m, _ := v.Interface().(json.Marshaler)
	if m == nil {
		if !v.CanAddr() {
			return notAddressable{}, nil
		}
		m = v.Addr().Interface().(json.Marshaler)
	}
	data, err := m.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var x any
	if err := json.Unmarshal(data, &x); err != nil {
		return nil, err
	}
	return normalizeNumbers(x), nil
}

type fieldInfo struct {
	name      string
	index     []int
	omitEmpty bool
}

type structInfo struct {
	fields []fieldInfo
	byName map[string]int
}

var structInfos sync.Map // reflect.Type → *structInfo

func structInfoOf(t reflect.Type) *structInfo {
	if si, ok := structInfos.Load(t); ok {
		return si.(*structInfo)
	}
	si := &structInfo{byName: map[string]int{}}
	collectFields(t, nil, si)
	structInfos.Store(t, si)
	return si
}

func collectFields(t reflect.Type, prefix []int, si *structInfo) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		index := append(append([]int(nil), prefix...), i)
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Struct {
				collectFields(ft, index, si)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, dup := si.byName[name]; dup {
			continue
		}
		si.byName[name] = len(si.fields)
		si.fields = append(si.fields, fieldInfo{name: name, index: index, omitEmpty: strings.Contains(","+opts+",", ",omitempty,")})
	}
}

func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

// structVal is a struct seen as a JSON object.
type structVal struct {
	v    reflect.Value
	info *structInfo
	// apiVersion and kind stand in for an empty TypeMeta at the root (the
	// server's built-in objects do not carry it).
	apiVersion, kind string
}

// NativeObject is Native for an API object whose apiVersion and kind are
// gvk's when the object does not set them.
func NativeObject(obj runtime.Object, gvk schema.GroupVersionKind) ref.Val {
	if obj == nil {
		return types.NullValue
	}
	if u, ok := obj.(runtime.Unstructured); ok {
		return types.DefaultTypeAdapter.NativeToValue(u.UnstructuredContent())
	}
	v := Native(obj)
	if sv, ok := v.(*structVal); ok {
		sv.apiVersion, sv.kind = gvk.GroupVersion().String(), gvk.Kind
	}
	return v
}

var _ traits.Mapper = (*structVal)(nil)

func (s *structVal) field(name string) (reflect.Value, bool) {
	i, ok := s.info.byName[name]
	if !ok {
		return reflect.Value{}, false
	}
	f := &s.info.fields[i]
	fv := s.v.FieldByIndex(f.index)
	if f.omitEmpty && isEmpty(fv) {
		switch {
		case name == "apiVersion" && s.apiVersion != "":
			return reflect.ValueOf(s.apiVersion), true
		case name == "kind" && s.kind != "":
			return reflect.ValueOf(s.kind), true
		}
		return reflect.Value{}, false
	}
	return fv, true
}

func (s *structVal) Find(key ref.Val) (ref.Val, bool) {
	k, ok := key.(types.String)
	if !ok {
		return nil, false
	}
	fv, ok := s.field(string(k))
	if !ok {
		return nil, false
	}
	return nativeVal(fv), true
}

func (s *structVal) Get(key ref.Val) ref.Val {
	if v, ok := s.Find(key); ok {
		return v
	}
	return types.NewErr("no such key: %v", key)
}

func (s *structVal) Contains(key ref.Val) ref.Val {
	_, ok := s.Find(key)
	return types.Bool(ok)
}

func (s *structVal) keys() []ref.Val {
	var out []ref.Val
	for _, f := range s.info.fields {
		if _, ok := s.field(f.name); ok {
			out = append(out, types.String(f.name))
		}
	}
	return out
}

func (s *structVal) Size() ref.Val { return types.Int(len(s.keys())) }

func (s *structVal) Iterator() traits.Iterator {
	return types.NewRefValList(nativeAdapter, s.keys()).(traits.Lister).Iterator()
}

// materialize is the struct's full JSON form, for what needs all of it.
func (s *structVal) materialize() ref.Val {
	v := s.v
	if v.CanAddr() {
		v = v.Addr()
	} else {
		p := reflect.New(v.Type())
		p.Elem().Set(v)
		v = p
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(v.Interface())
	if err != nil {
		return types.NewErr("%v", err)
	}
	return types.DefaultTypeAdapter.NativeToValue(m)
}

func (s *structVal) Equal(other ref.Val) ref.Val {
	if o, ok := other.(*structVal); ok {
		return types.Bool(reflect.DeepEqual(s.v.Interface(), o.v.Interface()))
	}
	return s.materialize().Equal(other)
}

func (s *structVal) ConvertToNative(t reflect.Type) (any, error) {
	return s.materialize().ConvertToNative(t)
}

func (s *structVal) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case types.MapType:
		return s
	case types.TypeType:
		return types.MapType
	}
	return types.NewErr("type conversion error from map to '%s'", t.TypeName())
}

func (s *structVal) Type() ref.Type { return types.MapType }
func (s *structVal) Value() any     { return s.v.Interface() }

// nativeAdapter converts Go values met inside native objects.
var nativeAdapter types.Adapter = adapter{}

type adapter struct{}

func (adapter) NativeToValue(v any) ref.Val {
	if r, ok := v.(ref.Val); ok {
		return r
	}
	return types.DefaultTypeAdapter.NativeToValue(v)
}
