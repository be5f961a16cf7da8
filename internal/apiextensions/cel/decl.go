package cel

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"

	"github.com/kapi-dev/kapi/internal/apiextensions/schema"
)

// Sizes from upstream's CEL limits: a request is at most 3MiB, and a JSON
// value of each type is at least this many bytes, which bounds how many
// elements a list, map or string can hold for cost estimation.
const (
	maxRequestSizeBytes = int64(3 * 1024 * 1024)
	maxDurationSizeJSON = 32
	maxDatetimeSizeJSON = 32
	minDurationSizeJSON = 3
	jsonDateSize        = 12
	minDatetimeSizeJSON = 21
	minStringSize       = 2
	minBoolSize         = 4
	minNumberSize       = 1
)

type kind int

const (
	kindObject kind = iota
	kindMap
	kindList
	kindString
	kindBytes
	kindDuration
	kindDate
	kindDateTime
	kindInt
	kindDouble
	kindBool
	kindIntOrString
)

// declNode is the CEL view of one schema node: its type for the checker,
// how to convert a JSON value at runtime, and size bounds for the cost
// estimator.
type declNode struct {
	kind     kind
	celType  *types.Type
	nullable bool
	// fields are an object's exposed properties by their CEL (escaped) name.
	fields map[string]*declField
	// elem is a list's item or a map's value.
	elem        *declNode
	listType    string
	listMapKeys []string
	maxElements int64
	minSize     int64
}

type declField struct {
	name string // the JSON property name
	node *declNode
}

// declBuilder builds declNodes and records every object type by name so
// the type provider can answer the checker's questions about them.
type declBuilder struct {
	objects map[string]*declNode
}

// build returns the declaration for s, or nil when s is not exposed to CEL
// (no type, or a container of unexposed values), as upstream.
func (b *declBuilder) build(s *schema.Structural, isResourceRoot bool, name string) *declNode {
	if s == nil {
		return nil
	}
	if s.XIntOrString {
		return &declNode{kind: kindIntOrString, celType: cel.DynType, nullable: s.Nullable, minSize: 1, maxElements: maxRequestSizeBytes - 2}
	}
	if isResourceRoot {
		s = withTypeAndObjectMeta(s)
	}
	n := &declNode{nullable: s.Nullable}
	switch s.Type {
	case "array":
		if s.Items == nil {
			return nil
		}
		elem := b.build(s.Items, s.Items.XEmbeddedResource, name+".@idx")
		if elem == nil {
			return nil
		}
		n.kind, n.elem, n.celType = kindList, elem, cel.ListType(elem.celType)
		n.listType, n.listMapKeys = s.XListType, s.XListMapKeys
		n.minSize, n.maxElements = 2, bounded((maxRequestSizeBytes-2)/(elem.minSize+1), s.MaxItems)
	case "object":
		if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil {
			ap := s.AdditionalProperties.Structural
			elem := b.build(ap, ap.XEmbeddedResource, name+".@elem")
			if elem == nil {
				return nil
			}
			n.kind, n.elem, n.celType = kindMap, elem, cel.MapType(cel.StringType, elem.celType)
			n.minSize, n.maxElements = 2, bounded((maxRequestSizeBytes-2)/(elem.minSize+6), s.MaxProperties)
			return n
		}
		n.kind, n.celType, n.minSize = kindObject, cel.ObjectType(name), 2
		n.fields = make(map[string]*declField, len(s.Properties))
		for prop, ps := range s.Properties {
			esc, ok := escapeName(prop)
			if !ok {
				continue
			}
			if f := b.build(ps, ps.XEmbeddedResource, name+"."+esc); f != nil {
				n.fields[esc] = &declField{name: prop, node: f}
			}
		}
		b.objects[name] = n
	case "string":
		n.minSize, n.maxElements = minStringSize, bounded(maxRequestSizeBytes-2, s.MaxLength)
		switch s.Format {
		case "byte":
			n.kind, n.celType = kindBytes, cel.BytesType
		case "duration":
			n.kind, n.celType, n.minSize, n.maxElements = kindDuration, cel.DurationType, minDurationSizeJSON, maxDurationSizeJSON
		case "date":
			n.kind, n.celType, n.minSize, n.maxElements = kindDate, cel.TimestampType, jsonDateSize, jsonDateSize
		case "date-time":
			n.kind, n.celType, n.minSize, n.maxElements = kindDateTime, cel.TimestampType, minDatetimeSizeJSON, maxDatetimeSizeJSON
		default:
			n.kind, n.celType = kindString, cel.StringType
		}
	case "boolean":
		n.kind, n.celType, n.minSize = kindBool, cel.BoolType, minBoolSize
	case "number":
		n.kind, n.celType, n.minSize = kindDouble, cel.DoubleType, minNumberSize
	case "integer":
		n.kind, n.celType, n.minSize = kindInt, cel.IntType, minNumberSize
	default:
		return nil
	}
	return n
}

// withTypeAndObjectMeta is the schema rules at a resource root see: kind
// and apiVersion are strings and metadata exposes only name and
// generateName, whatever the CRD declares.
func withTypeAndObjectMeta(s *schema.Structural) *schema.Structural {
	if isType(s.Properties["kind"], "string") && isType(s.Properties["apiVersion"], "string") &&
		isType(s.Properties["metadata"], "object") &&
		isType(s.Properties["metadata"].Properties["name"], "string") &&
		isType(s.Properties["metadata"].Properties["generateName"], "string") {
		return s
	}
	out := *s
	out.Properties = make(map[string]*schema.Structural, len(s.Properties)+3)
	for k, v := range s.Properties {
		out.Properties[k] = v
	}
	str := func() *schema.Structural { return &schema.Structural{Type: "string"} }
	out.Properties["kind"] = str()
	out.Properties["apiVersion"] = str()
	out.Properties["metadata"] = &schema.Structural{Type: "object", Properties: map[string]*schema.Structural{
		"name": str(), "generateName": str(),
	}}
	return &out
}

func isType(s *schema.Structural, t string) bool { return s != nil && s.Type == t }

// bounded is the schema's own limit when it sets one below the
// request-size bound.
func bounded(fromRequestSize int64, limit *int64) int64 {
	if limit != nil && *limit < fromRequestSize {
		return *limit
	}
	return fromRequestSize
}
