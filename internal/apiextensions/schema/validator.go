package schema

import (
	"encoding/json"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	openapierrors "k8s.io/kube-openapi/pkg/validation/errors"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// Validator validates custom resource objects of one version. It is built
// once per CRD version and is safe for concurrent use.
type Validator struct {
	openapi    *validate.SchemaValidator
	structural *Structural
}

// NewValidator builds the validator for a version's schema. A nil schema
// accepts everything.
func NewValidator(s *apiextv1.JSONSchemaProps) (*Validator, error) {
	if s == nil {
		return &Validator{}, nil
	}
	sch, err := toSpecSchema(s)
	if err != nil {
		return nil, err
	}
	walkSpec(sch, stripForValidation)
	// A non-structural schema is refused by CRD validation; whatever
	// structure could be read still drives the list-type and embedded checks.
	ss, _ := NewStructural(s, nil)
	return &Validator{
		openapi:    validate.NewSchemaValidator(sch, nil, "", strfmt.Default),
		structural: ss,
	}, nil
}

// Validate checks obj, a whole custom resource, against the schema and
// returns upstream's field errors.
func (v *Validator) Validate(obj map[string]any) field.ErrorList {
	if v == nil || v.openapi == nil {
		return nil
	}
	var errs field.ErrorList
	if res := v.openapi.Validate(obj); !res.IsValid() {
		errs = resultToFieldErrors(res)
	}
	errs = append(errs, validateEmbedded(nil, obj, v.structural)...)
	errs = append(errs, validateListTypes(nil, v.structural, obj)...)
	return errs
}

// resultToFieldErrors maps kube-openapi's errors to field errors the way
// kubectl users know them.
func resultToFieldErrors(res *validate.Result) field.ErrorList {
	var errs field.ErrorList
	for _, e := range res.Errors {
		ve, ok := e.(*openapierrors.Validation)
		if !ok {
			errs = append(errs, field.Invalid(nil, "", e.Error()))
			continue
		}
		var p *field.Path
		if ve.Name != "" && ve.Name != "." {
			p = p.Child(strings.TrimPrefix(ve.Name, "."))
		}
		errs = append(errs, validationToFieldError(p, ve))
	}
	return errs
}

func validationToFieldError(p *field.Path, ve *openapierrors.Validation) *field.Error {
	value := ve.Value
	if value == nil {
		value = ""
	}
	switch ve.Code() {
	case openapierrors.RequiredFailCode:
		return field.Required(p, "")
	case openapierrors.EnumFailCode:
		values := make([]string, 0, len(ve.Values))
		for _, allowed := range ve.Values {
			if s, ok := allowed.(string); ok {
				values = append(values, s)
				continue
			}
			b, _ := json.Marshal(allowed)
			values = append(values, string(b))
		}
		return field.NotSupported(p, ve.Value, values)
	case openapierrors.TooLongFailCode:
		return field.TooLong(p, "", int(int64Or(ve.Valid, -1)))
	case openapierrors.MaxItemsFailCode, openapierrors.TooManyPropertiesCode:
		return field.TooMany(p, int(int64Or(ve.Value, -1)), int(int64Or(ve.Valid, -1)))
	case openapierrors.InvalidTypeCode:
		return field.TypeInvalid(p, value, ve.Error())
	default:
		return field.Invalid(p, value, ve.Error())
	}
}

func int64Or(x any, def int64) int64 {
	if i, ok := x.(int64); ok {
		return i
	}
	return def
}
