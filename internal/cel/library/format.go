package library

import (
	"net/url"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
)

// formats are the named formats of format.named, with upstream's names
// and messages.
var formats = map[string]Format{
	"dns1123Label":           {"DNS1123Label", func(s string) []string { return apivalidation.NameIsDNSLabel(s, false) }},
	"dns1123Subdomain":       {"DNS1123Subdomain", func(s string) []string { return apivalidation.NameIsDNSSubdomain(s, false) }},
	"dns1035Label":           {"DNS1035Label", func(s string) []string { return apivalidation.NameIsDNS1035Label(s, false) }},
	"qualifiedName":          {"QualifiedName", validation.IsQualifiedName},
	"dns1123LabelPrefix":     {"DNS1123LabelPrefix", func(s string) []string { return apivalidation.NameIsDNSLabel(s, true) }},
	"dns1123SubdomainPrefix": {"DNS1123SubdomainPrefix", func(s string) []string { return apivalidation.NameIsDNSSubdomain(s, true) }},
	"dns1035LabelPrefix":     {"DNS1035LabelPrefix", func(s string) []string { return apivalidation.NameIsDNS1035Label(s, true) }},
	"labelValue":             {"LabelValue", validation.IsValidLabelValue},
	"uri":                    {"URI", validateURI},
	"uuid":                   {"uuid", strfmtCheck("uuid", "does not match the UUID format")},
	"byte":                   {"byte", strfmtCheck("byte", "invalid base64")},
	"date":                   {"date", strfmtCheck("date", "invalid date")},
	"datetime":               {"datetime", strfmtCheck("datetime", "invalid datetime")},
}

// formatDecls is Kubernetes' format library: format.named(name) is an
// optional format, and <format>.validate(string) an optional list of
// messages (none when valid).
func formatDecls() []cel.EnvOption {
	return []cel.EnvOption{
		cel.Function("validate", cel.MemberOverload("format-validate", []*cel.Type{FormatType, cel.StringType}, cel.OptionalType(cel.ListType(cel.StringType)), cel.BinaryBinding(formatValidate))),
		cel.Function("format.named", cel.Overload("format-named", []*cel.Type{cel.StringType}, cel.OptionalType(FormatType), cel.UnaryBinding(formatNamed))),
	}
}

func formatNamed(name ref.Val) ref.Val {
	s, ok := name.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(name)
	}
	f, ok := formats[s]
	if !ok {
		return types.OptionalNone
	}
	return types.OptionalOf(f)
}

func formatValidate(fv, sv ref.Val) ref.Val {
	f, ok := fv.Value().(Format)
	if !ok {
		return types.MaybeNoSuchOverloadErr(fv)
	}
	s, ok := sv.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(sv)
	}
	msgs := f.validate(s)
	if len(msgs) == 0 {
		return types.OptionalNone
	}
	return types.OptionalOf(types.NewStringList(types.DefaultTypeAdapter, msgs))
}

func validateURI(s string) []string {
	if _, err := url.ParseRequestURI(s); err != nil {
		return []string{err.Error()}
	}
	return nil
}

// strfmtCheck validates with kube-openapi's format registry, as CRD
// schema formats are.
func strfmtCheck(name, msg string) func(string) []string {
	return func(s string) []string {
		if !strfmt.Default.Validates(name, s) {
			return []string{msg}
		}
		return nil
	}
}
