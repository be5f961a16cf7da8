package routes

import (
	"net/http"
	"sort"

	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// Reference prefixes of the two document versions.
const (
	refPrefixV2 = "#/definitions/"
	refPrefixV3 = "#/components/schemas/"
)

// unauthorized is the answer every operation documents beside its own.
const unauthorized = http.StatusUnauthorized

// extensions are an operation's Kubernetes extensions.
func (op *operation) extensions() spec.Extensions {
	if op.action == "" {
		return nil
	}
	ext := spec.Extensions{}
	ext.Add("x-kubernetes-action", op.action)
	if op.gvk != nil {
		ext.Add("x-kubernetes-group-version-kind", map[string]any{
			"group": op.gvk.Group, "version": op.gvk.Version, "kind": op.gvk.Kind,
		})
	}
	return ext
}

// schemaOf is the schema of an answer or body: a reference to a
// definition, or a plain string when there is none.
func schemaOf(prefix, ref string) *spec.Schema {
	if ref == "" {
		return &spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{"string"}}}
	}
	return &spec.Schema{SchemaProps: spec.SchemaProps{Ref: spec.MustCreateRef(prefix + ref)}}
}

// renderV2 is a swagger 2.0 path item.
func renderV2(common []param, ops []operation) spec.PathItem {
	item := spec.PathItem{PathItemProps: spec.PathItemProps{Parameters: paramsV2(common)}}
	for i := range ops {
		op := &ops[i]
		out := &spec.Operation{
			VendorExtensible: spec.VendorExtensible{Extensions: op.extensions()},
			OperationProps: spec.OperationProps{
				Description: op.description,
				Consumes:    op.consumes,
				Produces:    op.produces,
				Schemes:     []string{"https"},
				Tags:        []string{op.tag},
				ID:          op.id,
				Parameters:  paramsV2(op.params),
				Responses:   responsesV2(op.responses),
			},
		}
		if op.body != "" {
			body := spec.Parameter{ParamProps: spec.ParamProps{
				Name: "body", In: "body", Required: op.bodyRequired, Schema: schemaOf(refPrefixV2, op.body),
			}}
			out.Parameters = append(out.Parameters, body)
			sort.SliceStable(out.Parameters, func(i, j int) bool {
				a, b := out.Parameters[i], out.Parameters[j]
				return a.Name < b.Name || a.Name == b.Name && a.In < b.In
			})
		}
		setV2(&item, op.method, out)
	}
	return item
}

func paramsV2(ps []param) []spec.Parameter {
	if len(ps) == 0 {
		return nil
	}
	out := make([]spec.Parameter, len(ps))
	for i, p := range ps {
		out[i] = spec.Parameter{
			ParamProps:        spec.ParamProps{Name: p.name, In: p.in, Description: p.description, Required: p.required},
			SimpleSchema:      spec.SimpleSchema{Type: p.typ},
			CommonValidations: spec.CommonValidations{UniqueItems: true},
		}
	}
	return out
}

func responsesV2(rs []response) *spec.Responses {
	codes := make(map[int]spec.Response, len(rs)+1)
	for _, r := range rs {
		codes[r.code] = spec.Response{ResponseProps: spec.ResponseProps{Description: r.description, Schema: schemaOf(refPrefixV2, r.ref)}}
	}
	codes[unauthorized] = spec.Response{ResponseProps: spec.ResponseProps{Description: statusText[unauthorized]}}
	return &spec.Responses{ResponsesProps: spec.ResponsesProps{StatusCodeResponses: codes}}
}

func setV2(item *spec.PathItem, method string, op *spec.Operation) {
	if slot := methodSlot(method, &item.Get, &item.Put, &item.Post, &item.Delete, &item.Options, &item.Head, &item.Patch); slot != nil {
		*slot = op
	}
}

// methodSlot picks, among a path item's operation fields (in the order
// get, put, post, delete, options, head, patch), the one of method; nil
// for another method. v2 and v3 path items have the same fields.
func methodSlot[O any](method string, get, put, post, del, options, head, patch **O) **O {
	switch method {
	case http.MethodGet:
		return get
	case http.MethodPut:
		return put
	case http.MethodPost:
		return post
	case http.MethodDelete:
		return del
	case http.MethodOptions:
		return options
	case http.MethodHead:
		return head
	case http.MethodPatch:
		return patch
	}
	return nil
}

// renderV3 is an OpenAPI 3.0 path: bodies and answers carry one content
// entry per media type.
func renderV3(common []param, ops []operation) *spec3.Path {
	item := &spec3.Path{PathProps: spec3.PathProps{Parameters: paramsV3(common)}}
	for i := range ops {
		op := &ops[i]
		out := &spec3.Operation{
			VendorExtensible: spec.VendorExtensible{Extensions: op.extensions()},
			OperationProps: spec3.OperationProps{
				Tags:        []string{op.tag},
				Description: op.description,
				OperationId: op.id,
				Parameters:  paramsV3(op.params),
				Responses:   responsesV3(op.responses, op.produces),
			},
		}
		if op.body != "" {
			out.RequestBody = &spec3.RequestBody{RequestBodyProps: spec3.RequestBodyProps{
				Content: contentV3(op.consumes, op.body), Required: op.bodyRequired,
			}}
		}
		setV3(item, op.method, out)
	}
	return item
}

func paramsV3(ps []param) []*spec3.Parameter {
	if len(ps) == 0 {
		return nil
	}
	out := make([]*spec3.Parameter, len(ps))
	for i, p := range ps {
		out[i] = &spec3.Parameter{ParameterProps: spec3.ParameterProps{
			Name: p.name, In: p.in, Description: p.description, Required: p.required,
			Schema: &spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{p.typ}, UniqueItems: true}},
		}}
	}
	return out
}

func contentV3(mediaTypes []string, ref string) map[string]*spec3.MediaType {
	content := make(map[string]*spec3.MediaType, len(mediaTypes))
	for _, mt := range mediaTypes {
		content[mt] = &spec3.MediaType{MediaTypeProps: spec3.MediaTypeProps{Schema: schemaOf(refPrefixV3, ref)}}
	}
	return content
}

func responsesV3(rs []response, produces []string) *spec3.Responses {
	codes := make(map[int]*spec3.Response, len(rs)+1)
	for _, r := range rs {
		codes[r.code] = &spec3.Response{ResponseProps: spec3.ResponseProps{Description: r.description, Content: contentV3(produces, r.ref)}}
	}
	codes[unauthorized] = &spec3.Response{ResponseProps: spec3.ResponseProps{Description: statusText[unauthorized]}}
	return &spec3.Responses{ResponsesProps: spec3.ResponsesProps{StatusCodeResponses: codes}}
}

func setV3(item *spec3.Path, method string, op *spec3.Operation) {
	if slot := methodSlot(method, &item.Get, &item.Put, &item.Post, &item.Delete, &item.Options, &item.Head, &item.Patch); slot != nil {
		*slot = op
	}
}
