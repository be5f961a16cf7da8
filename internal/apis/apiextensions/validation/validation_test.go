package validation

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

func ptr[T any](v T) *T { return &v }

func objectSchema() *apiextensionsv1.CustomResourceValidation {
	return &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
		Type: "object",
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
				"color": {Type: "string"},
				"size":  {Type: "integer"},
				"tags":  {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}},
			}},
			"status": {Type: "object"},
		},
	}}
}

func validCRD() *apiextensionsv1.CustomResourceDefinition {
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com", ResourceVersion: "1"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com",
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Kind: "Widget"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true, Storage: true, Schema: objectSchema()},
			},
		},
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(crd)
	return crd
}

// summary is "<type> <field>: <detail>", what a test compares.
func summary(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, string(e.Type)+" "+e.Field+": "+e.Detail)
	}
	return out
}

func TestValidateCustomResourceDefinition(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*apiextensionsv1.CustomResourceDefinition)
		want   []string
	}{
		{"valid", func(*apiextensionsv1.CustomResourceDefinition) {}, nil},
		{"name not plural.group", func(c *apiextensionsv1.CustomResourceDefinition) { c.Name = "gadgets.example.com" },
			[]string{`FieldValueInvalid metadata.name: must be spec.names.plural+"."+spec.group`}},
		{"group without dot", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Group = "example"
			c.Name = "widgets.example"
		},
			[]string{"FieldValueInvalid spec.group: should be a domain with at least one dot"}},
		{"group missing", func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Group = ""; c.Name = "widgets." },
			[]string{
				"FieldValueInvalid metadata.name: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
				"FieldValueRequired spec.group: ",
			}},
		{"bad scope", func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Scope = "Global" },
			[]string{`FieldValueNotSupported spec.scope: supported values: "Cluster", "Namespaced"`}},
		{"no scope", func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Scope = "" },
			[]string{"FieldValueRequired spec.scope: "}},
		{"no schema", func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Versions[0].Schema = nil },
			[]string{"FieldValueRequired spec.versions[0].schema.openAPIV3Schema: "}},
		{"no versions", func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Versions = nil },
			[]string{
				"FieldValueInvalid spec.versions: must have exactly one version marked as storage version",
				"FieldValueInvalid status.storedVersions[0]: missing from spec.versions; v1 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1 and removes v1 from status.storedVersions",
			}},
		{"two storage versions", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions = append(c.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{Name: "v2", Storage: true, Schema: objectSchema()})
		}, []string{
			"FieldValueInvalid spec.versions: must have exactly one version marked as storage version",
			"FieldValueInvalid status.storedVersions: must have the storage version v2",
		}},
		{"duplicate versions", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions = append(c.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{Name: "v1", Schema: objectSchema()})
		}, []string{"FieldValueInvalid spec.versions: must contain unique version names"}},
		{"bad version name", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions[0].Name = "V1"
			c.Status.StoredVersions = []string{"V1"}
		}, []string{
			"FieldValueInvalid spec.versions[0].name: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
			"FieldValueInvalid spec.version: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
		}},
		{"names", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Names.Singular = "Widget"
			c.Spec.Names.ListKind = "Widget"
			c.Spec.Names.ShortNames = []string{"w_g"}
			c.Spec.Names.Categories = []string{"All"}
		}, []string{
			"FieldValueInvalid spec.names.singular: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
			"FieldValueInvalid spec.names.shortNames[0]: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
			"FieldValueInvalid spec.names.listKind: kind and listKind may not be the same",
			"FieldValueInvalid spec.names.categories[0]: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
		}},
		{"names required", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Names = apiextensionsv1.CustomResourceDefinitionNames{}
			c.Name = ".example.com"
		}, []string{
			"FieldValueInvalid metadata.name: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
			"FieldValueRequired spec.names.plural: ", "FieldValueRequired spec.names.singular: ",
			"FieldValueRequired spec.names.kind: ", "FieldValueRequired spec.names.listKind: ",
		}},
		{"root not object, single version reported at top level", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions[0].Schema.OpenAPIV3Schema.Type = "string"
		}, []string{"FieldValueInvalid spec.validation.openAPIV3Schema.type: must be object at the root"}},
		{"per-version schema path", func(c *apiextensionsv1.CustomResourceDefinition) {
			s := objectSchema()
			s.OpenAPIV3Schema.Type = ""
			c.Spec.Versions = append(c.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{Name: "v2", Served: true, Schema: s})
		}, []string{"FieldValueRequired spec.versions[1].schema.openAPIV3Schema.type: must not be empty at the root"}},
		{"schema node checks", func(c *apiextensionsv1.CustomResourceDefinition) {
			p := c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties
			p["bad"] = apiextensionsv1.JSONSchemaProps{Type: "map", UniqueItems: true}
			p["nul"] = apiextensionsv1.JSONSchemaProps{Type: "null", Ref: ptr("#/x")}
			p["list"] = apiextensionsv1.JSONSchemaProps{Type: "object", XListType: ptr("set")}
			p["closed"] = apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr(false),
				Properties: map[string]apiextensionsv1.JSONSchemaProps{"a": {Type: "string"}}, AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Allows: false}}
			p["metadata"] = apiextensionsv1.JSONSchemaProps{Type: "object", Default: &apiextensionsv1.JSON{Raw: []byte(`{}`)}}
		}, []string{
			`FieldValueNotSupported spec.validation.openAPIV3Schema.properties[bad].type: supported values: "array", "boolean", "integer", "number", "object", "string"`,
			"FieldValueForbidden spec.validation.openAPIV3Schema.properties[bad].uniqueItems: uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
			"FieldValueForbidden spec.validation.openAPIV3Schema.properties[closed].additionalProperties: additionalProperties and properties are mutual exclusive",
			"FieldValueInvalid spec.validation.openAPIV3Schema.properties[closed].x-kubernetes-preserve-unknown-fields: must be true or undefined",
			"FieldValueInvalid spec.validation.openAPIV3Schema.properties[list].type: must be array if x-kubernetes-list-type is specified",
			"FieldValueForbidden spec.validation.openAPIV3Schema.properties[metadata].default: must not be set in top-level metadata",
			`FieldValueNotSupported spec.validation.openAPIV3Schema.properties[nul].type: supported values: "array", "boolean", "integer", "number", "object", "string"`,
			"FieldValueForbidden spec.validation.openAPIV3Schema.properties[nul].$ref: $ref is not supported",
			"FieldValueForbidden spec.validation.openAPIV3Schema.properties[nul].type: type cannot be set to null, use nullable as an alternative",
		}},
		{"list map", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["ports"] = apiextensionsv1.JSONSchemaProps{
				Type: "array", XListType: ptr("map"), XListMapKeys: []string{"port", "missing"},
				Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"port": {Type: "integer"}}}},
			}
		}, []string{
			"FieldValueInvalid spec.validation.openAPIV3Schema.properties[ports].x-kubernetes-list-map-keys: entries must all be names of item properties",
			"FieldValueRequired spec.validation.openAPIV3Schema.properties[ports].items.properties[port].default: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
		}},
		{"status subresource restricts root", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions[0].Subresources = &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}}
			c.Spec.Versions[0].Schema.OpenAPIV3Schema.AnyOf = []apiextensionsv1.JSONSchemaProps{{Required: []string{"spec"}}}
		}, []string{"FieldValueInvalid spec.validation.openAPIV3Schema: only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled"}},
		{"printer columns", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions[0].AdditionalPrinterColumns = []apiextensionsv1.CustomResourceColumnDefinition{
				{Type: "float", Format: "uuid", JSONPath: "spec.size"},
				{Name: "Size", JSONPath: ""},
			}
		}, []string{
			"FieldValueRequired spec.additionalPrinterColumns[0].name: ",
			"FieldValueInvalid spec.additionalPrinterColumns[0].type: must be one of boolean,date,integer,number,string",
			"FieldValueInvalid spec.additionalPrinterColumns[0].format: must be one of byte,date,date-time,double,float,int32,int64,password",
			"FieldValueInvalid spec.additionalPrinterColumns[0].JSONPath: must be a simple json path starting with .",
			"FieldValueRequired spec.additionalPrinterColumns[1].type: must be one of boolean,date,integer,number,string",
			"FieldValueRequired spec.additionalPrinterColumns[1].JSONPath: ",
		}},
		{"scale paths", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions[0].Subresources = &apiextensionsv1.CustomResourceSubresources{Scale: &apiextensionsv1.CustomResourceSubresourceScale{
				SpecReplicasPath: ".status.replicas", LabelSelectorPath: ptr(".metadata.labels"),
			}}
		}, []string{
			"FieldValueInvalid spec.subresources.scale.specReplicasPath: should be a json path under .spec",
			"FieldValueRequired spec.subresources.scale.statusReplicasPath: ",
			"FieldValueInvalid spec.subresources.scale.labelSelectorPath: should be a json path under either .spec or .status",
		}},
		{"webhook conversion without config", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter}
		}, []string{
			"FieldValueRequired spec.conversion.webhookClientConfig: required when strategy is set to Webhook",
			"FieldValueRequired spec.conversion.conversionReviewVersions: ",
		}},
		{"webhook conversion bad url and versions", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter, Webhook: &apiextensionsv1.WebhookConversion{
				ClientConfig:             &apiextensionsv1.WebhookClientConfig{URL: ptr("http://hook.example.com/convert?x=1")},
				ConversionReviewVersions: []string{"v2", "v2"},
			}}
		}, []string{
			"FieldValueInvalid spec.conversion.webhookClientConfig.url: 'https' is the only allowed URL scheme; desired format: https://host[/path]",
			"FieldValueInvalid spec.conversion.webhookClientConfig.url: query parameters are not permitted in the URL",
			"FieldValueInvalid spec.conversion.conversionReviewVersions[1]: duplicate version",
			"FieldValueInvalid spec.conversion.conversionReviewVersions: must include at least one of v1, v1beta1",
		}},
		{"webhook service", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter, Webhook: &apiextensionsv1.WebhookConversion{
				ClientConfig:             &apiextensionsv1.WebhookClientConfig{Service: &apiextensionsv1.ServiceReference{Name: "conv", Path: ptr("convert"), Port: ptr(int32(0))}},
				ConversionReviewVersions: []string{"v1"},
			}}
		}, []string{
			"FieldValueRequired spec.conversion.webhookClientConfig.service.namespace: ",
			"FieldValueInvalid spec.conversion.webhookClientConfig.service.port: port is not valid: must be between 1 and 65535, inclusive",
			"FieldValueInvalid spec.conversion.webhookClientConfig.service.path: must start with a '/'",
		}},
		{"none conversion with webhook", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Conversion.Webhook = &apiextensionsv1.WebhookConversion{ClientConfig: &apiextensionsv1.WebhookClientConfig{URL: ptr("https://x")}, ConversionReviewVersions: []string{"v1"}}
		}, []string{
			"FieldValueForbidden spec.conversion.webhookClientConfig: should not be set when strategy is not set to Webhook",
			"FieldValueForbidden spec.conversion.conversionReviewVersions: should not be set when strategy is not set to Webhook",
		}},
		{"selectable fields", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions[0].SelectableFields = []apiextensionsv1.SelectableField{
				{JSONPath: ".spec.color"}, {JSONPath: ".spec.tags"}, {JSONPath: ".spec.nope"}, {JSONPath: ".spec.color"}, {JSONPath: "spec.size"}, {JSONPath: ".spec.tags[0]"},
			}
		}, []string{
			"FieldValueInvalid spec.selectableFields[1].jsonPath: must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.",
			"FieldValueInvalid spec.selectableFields[2].jsonPath: is an invalid path: does not refer to a valid field",
			"FieldValueDuplicate spec.selectableFields[3].jsonPath: ",
			"FieldValueInvalid spec.selectableFields[4].jsonPath: is an invalid path: expected [ or . but got: spec",
			"FieldValueInvalid spec.selectableFields[5].jsonPath: is an invalid path: array notation is not allowed",
		}},
		{"too many selectable fields", func(c *apiextensionsv1.CustomResourceDefinition) {
			props := map[string]apiextensionsv1.JSONSchemaProps{}
			for _, n := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"} {
				props[n] = apiextensionsv1.JSONSchemaProps{Type: "string"}
				c.Spec.Versions[0].SelectableFields = append(c.Spec.Versions[0].SelectableFields, apiextensionsv1.SelectableField{JSONPath: ".spec." + n})
			}
			c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = apiextensionsv1.JSONSchemaProps{Type: "object", Properties: props}
		}, []string{"FieldValueTooMany spec.selectableFields: must have at most 8 items"}},
		{"deprecation warning on served version", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions[0].DeprecationWarning = ptr("old")
		}, []string{"FieldValueInvalid spec.versions[0].deprecationWarning: can only be set for deprecated versions"}},
		{"protected group", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Group = "x.k8s.io"
			c.Name = "widgets.x.k8s.io"
		}, []string{`FieldValueRequired metadata.annotations[api-approved.kubernetes.io]: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111`}},
		{"protected group approved", func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Group = "x.k8s.io"
			c.Name = "widgets.x.k8s.io"
			c.Annotations = map[string]string{APIApprovedAnnotation: "https://github.com/kubernetes/kubernetes/pull/1"}
		}, nil},
		{"preserveUnknownFields", func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.PreserveUnknownFields = true },
			[]string{"FieldValueInvalid spec.preserveUnknownFields: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead"}},
		{"no stored versions", func(c *apiextensionsv1.CustomResourceDefinition) { c.Status.StoredVersions = nil },
			[]string{"FieldValueInvalid status.storedVersions: must have at least one stored version"}},
		{"bad accepted names", func(c *apiextensionsv1.CustomResourceDefinition) { c.Status.AcceptedNames.Plural = "Widgets" },
			[]string{"FieldValueInvalid status.acceptedNames.plural: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"}},
	}
	for _, tt := range tests {
		crd := validCRD()
		tt.mutate(crd)
		if diff := cmp.Diff(tt.want, summary(ValidateCustomResourceDefinition(crd))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func established(c *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
	c.Status.Conditions = []apiextensionsv1.CustomResourceDefinitionCondition{{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue}}
	return c
}

func TestValidateCustomResourceDefinitionUpdate(t *testing.T) {
	tests := []struct {
		name   string
		old    *apiextensionsv1.CustomResourceDefinition
		mutate func(*apiextensionsv1.CustomResourceDefinition)
		want   []string
	}{
		{"unchanged", validCRD(), func(*apiextensionsv1.CustomResourceDefinition) {}, nil},
		{"scope of established CRD", established(validCRD()), func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Scope = apiextensionsv1.ClusterScoped },
			[]string{"FieldValueInvalid spec.scope: field is immutable"}},
		{"kind of established CRD", established(validCRD()), func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Names.Kind = "Gadget" },
			[]string{"FieldValueInvalid spec.names.kind: field is immutable"}},
		{"scope before established", validCRD(), func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Scope = apiextensionsv1.ClusterScoped }, nil},
		{"group and plural", validCRD(), func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Group = "other.com"
			c.Spec.Names.Plural = "gadgets"
		}, []string{"FieldValueInvalid spec.group: field is immutable", "FieldValueInvalid spec.names.plural: field is immutable"}},
		{"new storage version must be stored", validCRD(), func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions[0].Storage = false
			c.Spec.Versions = append(c.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{Name: "v2", Served: true, Storage: true, Schema: objectSchema()})
		}, []string{"FieldValueInvalid status.storedVersions: must have the storage version v2"}},
		{"stored version removed from spec", validCRD(), func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions[0].Name = "v2"
			c.Status.StoredVersions = []string{"v1", "v2"}
		}, []string{"FieldValueInvalid status.storedVersions[0]: missing from spec.versions; v1 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1 and removes v1 from status.storedVersions"}},
		{"old without schema keeps served schema rule", func() *apiextensionsv1.CustomResourceDefinition {
			c := validCRD()
			c.Spec.Versions[0].Schema = nil
			return c
		}(), func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions[0].Schema = nil
			c.Spec.Versions = append(c.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{Name: "v2", Served: false})
		}, []string{"FieldValueRequired spec.versions[0].schema.openAPIV3Schema: because otherwise all fields are pruned"}},
	}
	for _, tt := range tests {
		crd := tt.old.DeepCopy()
		tt.mutate(crd)
		if diff := cmp.Diff(tt.want, summary(ValidateCustomResourceDefinitionUpdate(crd, tt.old))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestValidateUpdateStatus(t *testing.T) {
	old := validCRD()
	crd := old.DeepCopy()
	crd.Status.AcceptedNames = apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Kind: "widget", ListKind: "widget"}
	want := []string{"FieldValueInvalid status.acceptedNames.listKind: kind and listKind may not be the same"}
	if diff := cmp.Diff(want, summary(ValidateUpdateCustomResourceDefinitionStatus(crd, old))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestHoisting(t *testing.T) {
	crd := validCRD()
	crd.Spec.Versions = append(crd.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{Name: "v2", Served: true, Schema: objectSchema()})
	v := newSpecView(&crd.Spec)
	if v.validation == nil || v.versions[0].Schema != nil || v.versions[1].Schema != nil {
		t.Errorf("identical schemas not lifted: %+v", v)
	}
	if crd.Spec.Versions[0].Schema == nil {
		t.Error("newSpecView changed the CRD")
	}
	crd.Spec.Versions[1].Schema.OpenAPIV3Schema.Description = "different"
	v = newSpecView(&crd.Spec)
	if v.validation != nil || v.versions[1].Schema == nil {
		t.Errorf("different schemas lifted: %+v", v)
	}
}
