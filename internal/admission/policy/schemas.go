package policy

import (
	"reflect"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/validation/spec"

	apischema "github.com/kapi-dev/kapi/internal/apiextensions/schema"
	"github.com/kapi-dev/kapi/internal/endpoints/openapi/definitions"
)

// maxSchemaDepth bounds the expansion of recursive definitions (deeper
// values are left untyped).
const maxSchemaDepth = 32

// BuiltinSchemas resolves the schemas of the built-in kinds of a scheme
// from the OpenAPI v3 definitions the server publishes, in the structural
// form the CEL type declarations are built from. It is safe for
// concurrent use and caches what it built.
type BuiltinSchemas struct {
	scheme  *runtime.Scheme
	builder *definitions.Builder

	mu    sync.Mutex
	cache map[schema.GroupVersionKind]*apischema.Structural
}

// NewBuiltinSchemas resolves the kinds registered in scheme.
func NewBuiltinSchemas(scheme *runtime.Scheme) *BuiltinSchemas {
	return &BuiltinSchemas{scheme: scheme, builder: definitions.NewBuilder(scheme), cache: map[schema.GroupVersionKind]*apischema.Structural{}}
}

// Schema is gvk's schema; nil when the scheme does not know the kind.
func (b *BuiltinSchemas) Schema(gvk schema.GroupVersionKind) *apischema.Structural {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s, ok := b.cache[gvk]; ok {
		return s
	}
	t, ok := b.scheme.AllKnownTypes()[gvk]
	if !ok || gvk.Version == runtime.APIVersionInternal {
		b.cache[gvk] = nil
		return nil
	}
	defs := b.builder.V3(t)
	s := toStructural(defs, defs[definitions.Name(reflect.PointerTo(t))], 0)
	b.cache[gvk] = s
	return s
}

func toStructural(defs map[string]*spec.Schema, s *spec.Schema, depth int) *apischema.Structural {
	if s == nil {
		return nil
	}
	if depth > maxSchemaDepth {
		return &apischema.Structural{XIntOrString: true}
	}
	if ref := s.Ref.String(); ref != "" {
		return toStructural(defs, defs[ref[strings.LastIndex(ref, "/")+1:]], depth+1)
	}
	if len(s.Type) == 0 && len(s.AllOf) == 1 {
		out := toStructural(defs, &s.AllOf[0], depth)
		if out != nil && s.Nullable {
			c := *out
			c.Nullable = true
			out = &c
		}
		return out
	}
	out := &apischema.Structural{Format: s.Format, Nullable: s.Nullable, MaxItems: s.MaxItems, MaxLength: s.MaxLength, MaxProperties: s.MaxProperties}
	if len(s.Type) > 0 {
		out.Type = s.Type[0]
	}
	ext := func(k string) (any, bool) { v, ok := s.Extensions[k]; return v, ok }
	if v, ok := ext("x-kubernetes-int-or-string"); ok && v == true {
		out.XIntOrString = true
	}
	if out.Type == "" && len(s.OneOf) > 0 {
		// quantities and the like: several scalar forms
		out.XIntOrString = true
	}
	if v, ok := ext("x-kubernetes-preserve-unknown-fields"); ok && v == true {
		out.XPreserveUnknownFields = true
	}
	if v, ok := ext("x-kubernetes-embedded-resource"); ok && v == true {
		out.XEmbeddedResource = true
	}
	if v, ok := ext("x-kubernetes-list-type"); ok {
		out.XListType, _ = v.(string)
	}
	if v, ok := ext("x-kubernetes-map-type"); ok {
		out.XMapType, _ = v.(string)
	}
	if v, ok := ext("x-kubernetes-list-map-keys"); ok {
		switch keys := v.(type) {
		case []string:
			out.XListMapKeys = keys
		case []any:
			for _, k := range keys {
				if ks, ok := k.(string); ok {
					out.XListMapKeys = append(out.XListMapKeys, ks)
				}
			}
		}
	}
	if s.Items != nil && s.Items.Schema != nil {
		out.Items = toStructural(defs, s.Items.Schema, depth+1)
	}
	if len(s.Properties) > 0 {
		out.Properties = make(map[string]*apischema.Structural, len(s.Properties))
		for name, p := range s.Properties {
			p := p
			if ps := toStructural(defs, &p, depth+1); ps != nil {
				out.Properties[name] = ps
			}
		}
	}
	if s.AdditionalProperties != nil {
		if s.AdditionalProperties.Schema != nil {
			out.AdditionalProperties = &apischema.StructuralOrBool{Structural: toStructural(defs, s.AdditionalProperties.Schema, depth+1)}
		} else {
			out.AdditionalProperties = &apischema.StructuralOrBool{Bool: s.AdditionalProperties.Allows}
		}
	}
	return out
}

// TypeConverter is the server-side apply type converter of the scheme's
// kinds (built on first use; building it takes a while).
func (b *BuiltinSchemas) TypeConverter() (managedfields.TypeConverter, error) {
	return b.builder.TypeConverter()
}
