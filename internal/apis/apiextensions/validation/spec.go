package validation

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/api/equality"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// options relax or tighten checks; on update each strict check holds only
// if the old object already passed it.
type options struct {
	requireRecognizedConversionReviewVersion bool
	requireImmutableNames                    bool
	requireOpenAPISchema                     bool
	requireValidPropertyType                 bool
	requireAtomicSetType                     bool
	requireMapListKeysMapSetValidation       bool
	allowInvalidCABundle                     bool
	// allowTooManySelectableFields names the versions ("" for the top
	// level) whose unchanged, already too long list is kept.
	allowTooManySelectableFields map[string]bool
}

// specView is a spec as upstream's internal version sees it: what all
// versions share is lifted to the top level and cleared per version.
type specView struct {
	*apiextensionsv1.CustomResourceDefinitionSpec
	validation       *apiextensionsv1.CustomResourceValidation
	subresources     *apiextensionsv1.CustomResourceSubresources
	columns          []apiextensionsv1.CustomResourceColumnDefinition
	selectableFields []apiextensionsv1.SelectableField
	// version is the first version's name (upstream's spec.version).
	version  string
	versions []apiextensionsv1.CustomResourceDefinitionVersion
}

func newSpecView(spec *apiextensionsv1.CustomResourceDefinitionSpec) *specView {
	v := &specView{CustomResourceDefinitionSpec: spec, versions: append([]apiextensionsv1.CustomResourceDefinitionVersion(nil), spec.Versions...)}
	if len(v.versions) == 0 {
		return v
	}
	first := v.versions[0]
	v.version = first.Name
	same := func(get func(apiextensionsv1.CustomResourceDefinitionVersion) any) bool {
		for _, ver := range v.versions {
			if !equality.Semantic.DeepEqual(get(ver), get(first)) {
				return false
			}
		}
		return true
	}
	lift := []struct {
		get   func(apiextensionsv1.CustomResourceDefinitionVersion) any
		set   func()
		clear func(*apiextensionsv1.CustomResourceDefinitionVersion)
	}{
		{func(x apiextensionsv1.CustomResourceDefinitionVersion) any { return x.Subresources },
			func() { v.subresources = first.Subresources },
			func(x *apiextensionsv1.CustomResourceDefinitionVersion) { x.Subresources = nil }},
		{func(x apiextensionsv1.CustomResourceDefinitionVersion) any { return x.Schema },
			func() { v.validation = first.Schema },
			func(x *apiextensionsv1.CustomResourceDefinitionVersion) { x.Schema = nil }},
		{func(x apiextensionsv1.CustomResourceDefinitionVersion) any { return x.AdditionalPrinterColumns },
			func() { v.columns = first.AdditionalPrinterColumns },
			func(x *apiextensionsv1.CustomResourceDefinitionVersion) { x.AdditionalPrinterColumns = nil }},
		{func(x apiextensionsv1.CustomResourceDefinitionVersion) any { return x.SelectableFields },
			func() { v.selectableFields = first.SelectableFields },
			func(x *apiextensionsv1.CustomResourceDefinitionVersion) { x.SelectableFields = nil }},
	}
	for _, l := range lift {
		if !same(l.get) {
			continue
		}
		l.set()
		for i := range v.versions {
			l.clear(&v.versions[i])
		}
	}
	return v
}

// hasSchemaWith says whether any schema of the spec satisfies pred.
func (v *specView) hasSchemaWith(pred func(*apiextensionsv1.JSONSchemaProps) bool) bool {
	if v.validation != nil && v.validation.OpenAPIV3Schema != nil && schemaHas(v.validation.OpenAPIV3Schema, pred) {
		return true
	}
	for _, ver := range v.versions {
		if ver.Schema != nil && ver.Schema.OpenAPIV3Schema != nil && schemaHas(ver.Schema.OpenAPIV3Schema, pred) {
			return true
		}
	}
	return false
}

// subresourcesFor is the subresources that apply to version i.
func (v *specView) subresourcesFor(i int) *apiextensionsv1.CustomResourceSubresources {
	for _, ver := range v.versions {
		if ver.Subresources != nil {
			return v.versions[i].Subresources
		}
	}
	return v.subresources
}

func (v *specView) anyStatusEnabled() bool {
	if hasStatus(v.subresources) {
		return true
	}
	for _, ver := range v.versions {
		if hasStatus(ver.Subresources) {
			return true
		}
	}
	return false
}

func hasStatus(s *apiextensionsv1.CustomResourceSubresources) bool {
	return s != nil && s.Status != nil
}

func allVersionsHaveSchema(v *specView) bool {
	if v.validation != nil && v.validation.OpenAPIV3Schema != nil {
		return true
	}
	for _, ver := range v.versions {
		if ver.Schema == nil || ver.Schema.OpenAPIV3Schema == nil {
			return false
		}
	}
	return true
}

func isDNS1035Label(s string) []string { return utilvalidation.IsDNS1035Label(s) }

func validateSpec(spec *specView, opts options, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	switch {
	case spec.Group == "":
		allErrs = append(allErrs, field.Required(fldPath.Child("group"), ""))
	case len(utilvalidation.IsDNS1123Subdomain(spec.Group)) > 0:
		allErrs = append(allErrs, field.Invalid(fldPath.Child("group"), spec.Group, strings.Join(utilvalidation.IsDNS1123Subdomain(spec.Group), ",")))
	case !strings.Contains(spec.Group, "."):
		allErrs = append(allErrs, field.Invalid(fldPath.Child("group"), spec.Group, "should be a domain with at least one dot"))
	}
	allErrs = append(allErrs, validateEnum(fldPath.Child("scope"), string(spec.Scope), []string{string(apiextensionsv1.ClusterScoped), string(apiextensionsv1.NamespaceScoped)})...)
	allErrs = append(allErrs, validateSchemaPresence(spec, opts, fldPath)...)
	if spec.hasSchemaWith(func(s *apiextensionsv1.JSONSchemaProps) bool { return s.Default != nil }) && spec.PreserveUnknownFields {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("preserveUnknownFields"), true, "must be false in order to use defaults in the schema"))
	}

	storageCount := 0
	seen := map[string]bool{}
	unique := true
	for i := range spec.versions {
		version := &spec.versions[i]
		path := fldPath.Child("versions").Index(i)
		if version.Storage {
			storageCount++
		}
		if seen[version.Name] {
			unique = false
		}
		seen[version.Name] = true
		if errs := isDNS1035Label(version.Name); len(errs) > 0 {
			allErrs = append(allErrs, field.Invalid(path.Child("name"), version.Name, strings.Join(errs, ",")))
		}
		allErrs = append(allErrs, validateVersion(version, hasStatus(spec.subresourcesFor(i)), opts, path)...)
	}
	if !unique {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("versions"), spec.Versions, "must contain unique version names"))
	}
	if storageCount != 1 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("versions"), spec.Versions, "must have exactly one version marked as storage version"))
	}
	if spec.version != "" {
		if errs := isDNS1035Label(spec.version); len(errs) > 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("version"), spec.version, strings.Join(errs, ",")))
		}
	}

	names := fldPath.Child("names")
	for _, n := range []struct{ name, value string }{
		{"plural", spec.Names.Plural}, {"singular", spec.Names.Singular}, {"kind", spec.Names.Kind}, {"listKind", spec.Names.ListKind},
	} {
		if n.value == "" {
			allErrs = append(allErrs, field.Required(names.Child(n.name), ""))
		}
	}
	allErrs = append(allErrs, ValidateCustomResourceDefinitionNames(&spec.Names, names)...)
	allErrs = append(allErrs, validateValidation(spec.validation, spec.anyStatusEnabled(), opts, fldPath.Child("validation"))...)
	allErrs = append(allErrs, ValidateCustomResourceDefinitionSubresources(spec.subresources, fldPath.Child("subresources"))...)
	for i := range spec.columns {
		allErrs = append(allErrs, ValidateCustomResourceColumnDefinition(&spec.columns[i], fldPath.Child("additionalPrinterColumns").Index(i))...)
	}
	if len(spec.selectableFields) > 0 {
		if spec.validation == nil {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("selectableFields"), "", "may only be set when validations.schema is included"))
		} else {
			allErrs = append(allErrs, validateSelectableFields(spec.selectableFields, spec.validation.OpenAPIV3Schema, opts.allowTooManySelectableFields[""], fldPath.Child("selectableFields"))...)
		}
	}
	if spec.Conversion != nil && spec.Conversion.Strategy != apiextensionsv1.NoneConverter && spec.PreserveUnknownFields {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("conversion", "strategy"), spec.Conversion.Strategy, "must be None if spec.preserveUnknownFields is true"))
	}
	allErrs = append(allErrs, validateConversion(spec.Conversion, opts, fldPath.Child("conversion"))...)
	return allErrs
}

// validateSchemaPresence requires a schema for every version (v1), or,
// for CRDs that predate that rule, for every served version that would
// otherwise have all its fields pruned.
func validateSchemaPresence(spec *specView, opts options, fldPath *field.Path) field.ErrorList {
	if spec.validation != nil && spec.validation.OpenAPIV3Schema != nil {
		return nil
	}
	var allErrs field.ErrorList
	for i, v := range spec.versions {
		path := fldPath.Child("versions").Index(i).Child("schema", "openAPIV3Schema")
		missing := v.Schema == nil || v.Schema.OpenAPIV3Schema == nil
		switch {
		case opts.requireOpenAPISchema && missing:
			allErrs = append(allErrs, field.Required(path, ""))
		case !opts.requireOpenAPISchema && !spec.PreserveUnknownFields && v.Served && missing:
			allErrs = append(allErrs, field.Required(path, "because otherwise all fields are pruned"))
		}
	}
	return allErrs
}

func validateVersion(version *apiextensionsv1.CustomResourceDefinitionVersion, statusEnabled bool, opts options, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for _, msg := range validateDeprecationWarning(version.Deprecated, version.DeprecationWarning) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("deprecationWarning"), version.DeprecationWarning, msg))
	}
	allErrs = append(allErrs, validateValidation(version.Schema, statusEnabled, opts, fldPath.Child("schema"))...)
	allErrs = append(allErrs, ValidateCustomResourceDefinitionSubresources(version.Subresources, fldPath.Child("subresources"))...)
	for i := range version.AdditionalPrinterColumns {
		allErrs = append(allErrs, ValidateCustomResourceColumnDefinition(&version.AdditionalPrinterColumns[i], fldPath.Child("additionalPrinterColumns").Index(i))...)
	}
	if len(version.SelectableFields) > 0 {
		if version.Schema == nil || version.Schema.OpenAPIV3Schema == nil {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("selectableFields"), "", "may only be set when `version.schema.openAPIV3Schema` is not included"))
		} else {
			allErrs = append(allErrs, validateSelectableFields(version.SelectableFields, version.Schema.OpenAPIV3Schema, opts.allowTooManySelectableFields[version.Name], fldPath.Child("selectableFields"))...)
		}
	}
	return allErrs
}

func validateDeprecationWarning(deprecated bool, warning *string) []string {
	if !deprecated && warning != nil {
		return []string{"can only be set for deprecated versions"}
	}
	if warning == nil {
		return nil
	}
	var msgs []string
	if len(*warning) > 256 {
		msgs = append(msgs, "must be <= 256 characters long")
	}
	if *warning == "" {
		msgs = append(msgs, "must not be an empty string")
	}
	for i, r := range *warning {
		if !unicode.IsPrint(r) {
			msgs = append(msgs, fmt.Sprintf("must only contain printable UTF-8 characters; non-printable character found at index %d", i))
			break
		}
		if unicode.IsControl(r) {
			msgs = append(msgs, fmt.Sprintf("must only contain printable UTF-8 characters; control character found at index %d", i))
			break
		}
	}
	if !utf8.ValidString(*warning) {
		msgs = append(msgs, "must only contain printable UTF-8 characters")
	}
	return msgs
}

func validateEnum(fldPath *field.Path, value string, accepted []string) field.ErrorList {
	if value == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	for _, a := range accepted {
		if a == value {
			return nil
		}
	}
	return field.ErrorList{field.NotSupported(fldPath, value, accepted)}
}

// tooManySelectableFieldsAllowed keeps, on update, a selectable field list
// that was already over the limit as long as it is unchanged.
func tooManySelectableFieldsAllowed(spec, old *specView) map[string]bool {
	allowed := map[string]bool{}
	if len(old.selectableFields) > MaxSelectableFields && equality.Semantic.DeepEqual(spec.selectableFields, old.selectableFields) {
		allowed[""] = true
	}
	oldVersions := map[string][]apiextensionsv1.SelectableField{}
	for _, v := range old.versions {
		oldVersions[v.Name] = v.SelectableFields
	}
	for _, v := range spec.versions {
		if o, ok := oldVersions[v.Name]; ok && len(o) > MaxSelectableFields && equality.Semantic.DeepEqual(v.SelectableFields, o) {
			allowed[v.Name] = true
		}
	}
	return allowed
}
