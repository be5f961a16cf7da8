package schema

import (
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/kube-openapi/pkg/validation/spec"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// toSpecSchema converts a JSONSchemaProps to kube-openapi's schema. The two
// share JSON field names (x-kubernetes-* become vendor extensions), so a JSON
// round trip is the faithful conversion; int-or-string then needs its type
// list, which JSONSchemaProps cannot spell.
func toSpecSchema(s *apiextv1.JSONSchemaProps) (*spec.Schema, error) {
	out := &spec.Schema{}
	if s == nil {
		return out, nil
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encoding schema: %w", err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return nil, fmt.Errorf("decoding schema: %w", err)
	}
	walkSpec(out, func(x *spec.Schema) {
		if b, ok := x.Extensions.GetBool("x-kubernetes-int-or-string"); ok && b {
			x.Type = spec.StringOrArray{"integer", "string"}
		}
	})
	return out, nil
}

// walkSpec calls fn on every schema in s, parents first.
func walkSpec(s *spec.Schema, fn func(*spec.Schema)) {
	if s == nil {
		return
	}
	fn(s)
	for k, p := range s.Properties {
		walkSpec(&p, fn)
		s.Properties[k] = p
	}
	if s.Items != nil {
		walkSpec(s.Items.Schema, fn)
		for i := range s.Items.Schemas {
			walkSpec(&s.Items.Schemas[i], fn)
		}
	}
	if s.AdditionalProperties != nil {
		walkSpec(s.AdditionalProperties.Schema, fn)
	}
	for _, l := range [][]spec.Schema{s.AllOf, s.AnyOf, s.OneOf} {
		for i := range l {
			walkSpec(&l[i], fn)
		}
	}
	walkSpec(s.Not, fn)
}

// supportedStringFormats are the string formats custom resources enforce;
// others are ignored, as upstream does, so CRDs with made-up formats keep
// working. Names are compared without dashes ("date-time" is "datetime").
var supportedStringFormats = map[string]bool{
	"bsonobjectid": true, "uri": true, "email": true, "hostname": true,
	"ipv4": true, "ipv6": true, "cidr": true, "mac": true, "uuid": true,
	"uuid3": true, "uuid4": true, "uuid5": true, "isbn": true, "isbn10": true,
	"isbn13": true, "creditcard": true, "ssn": true, "hexcolor": true,
	"rgbcolor": true, "byte": true, "password": true, "date": true,
	"duration": true, "datetime": true,
}

// stripForValidation removes what the value validator must not act on:
// unsupported formats and references (non-structural anyway).
func stripForValidation(x *spec.Schema) {
	x.Ref = spec.Ref{}
	x.Definitions = nil
	x.PatternProperties = nil
	x.Dependencies = nil
	x.AdditionalItems = nil
	if x.Format == "" {
		return
	}
	typ := ""
	if len(x.Type) == 1 {
		typ = x.Type[0]
	}
	switch typ {
	case "", "string":
		if !supportedStringFormats[strings.ReplaceAll(x.Format, "-", "")] {
			x.Format = ""
		}
	case "integer":
		if x.Format != "int32" && x.Format != "int64" {
			x.Format = ""
		}
	case "number":
		if x.Format != "float" && x.Format != "double" {
			x.Format = ""
		}
	default:
		x.Format = ""
	}
}
