// Package v1 holds the apiextensions.k8s.io/v1 API types: the
// CustomResourceDefinition and its schema language. They are kapi's own
// Go types with upstream's JSON field names (k8s.io/apiextensions-apiserver
// is the server kapi writes, so it is not imported); JSON is their only
// wire format.
package v1

import (
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the group of CustomResourceDefinitions.
const GroupName = "apiextensions.k8s.io"

// SchemeGroupVersion is apiextensions.k8s.io/v1.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1"}

// AddToScheme registers the types.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(SchemeGroupVersion, &CustomResourceDefinition{}, &CustomResourceDefinitionList{})
	metav1.AddToGroupVersion(s, SchemeGroupVersion)
	return nil
}

// CustomResourceDefinition describes a resource served by the extensions
// server.
type CustomResourceDefinition struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   CustomResourceDefinitionSpec   `json:"spec"`
	Status CustomResourceDefinitionStatus `json:"status,omitempty"`
}

// CustomResourceDefinitionList is a list of CustomResourceDefinitions.
type CustomResourceDefinitionList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CustomResourceDefinition `json:"items"`
}

// ResourceScope is Namespaced or Cluster.
type ResourceScope string

// The scopes.
const (
	ClusterScoped   ResourceScope = "Cluster"
	NamespaceScoped ResourceScope = "Namespaced"
)

// CustomResourceDefinitionSpec is what the user asks for.
type CustomResourceDefinitionSpec struct {
	Group                 string                            `json:"group"`
	Names                 CustomResourceDefinitionNames     `json:"names"`
	Scope                 ResourceScope                     `json:"scope"`
	Versions              []CustomResourceDefinitionVersion `json:"versions"`
	Conversion            *CustomResourceConversion         `json:"conversion,omitempty"`
	PreserveUnknownFields bool                              `json:"preserveUnknownFields,omitempty"`
}

// CustomResourceDefinitionNames are the names a resource is served under.
type CustomResourceDefinitionNames struct {
	Plural     string   `json:"plural"`
	Singular   string   `json:"singular,omitempty"`
	ShortNames []string `json:"shortNames,omitempty"`
	Kind       string   `json:"kind"`
	ListKind   string   `json:"listKind,omitempty"`
	Categories []string `json:"categories,omitempty"`
}

// CustomResourceDefinitionVersion is one served version.
type CustomResourceDefinitionVersion struct {
	Name                     string                           `json:"name"`
	Served                   bool                             `json:"served"`
	Storage                  bool                             `json:"storage"`
	Deprecated               bool                             `json:"deprecated,omitempty"`
	DeprecationWarning       *string                          `json:"deprecationWarning,omitempty"`
	Schema                   *CustomResourceValidation        `json:"schema,omitempty"`
	Subresources             *CustomResourceSubresources      `json:"subresources,omitempty"`
	AdditionalPrinterColumns []CustomResourceColumnDefinition `json:"additionalPrinterColumns,omitempty"`
	SelectableFields         []SelectableField                `json:"selectableFields,omitempty"`
}

// SelectableField is a field usable in field selectors.
type SelectableField struct {
	JSONPath string `json:"jsonPath"`
}

// CustomResourceColumnDefinition is a column of `kubectl get`.
type CustomResourceColumnDefinition struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Format      string `json:"format,omitempty"`
	Description string `json:"description,omitempty"`
	Priority    int32  `json:"priority,omitempty"`
	JSONPath    string `json:"jsonPath"`
}

// ConversionStrategyType is None or Webhook.
type ConversionStrategyType string

// The conversion strategies.
const (
	NoneConverter    ConversionStrategyType = "None"
	WebhookConverter ConversionStrategyType = "Webhook"
)

// CustomResourceConversion says how versions convert.
type CustomResourceConversion struct {
	Strategy ConversionStrategyType `json:"strategy"`
	Webhook  *WebhookConversion     `json:"webhook,omitempty"`
}

// WebhookConversion is a conversion webhook.
type WebhookConversion struct {
	ClientConfig             *WebhookClientConfig `json:"clientConfig,omitempty"`
	ConversionReviewVersions []string             `json:"conversionReviewVersions"`
}

// WebhookClientConfig reaches a webhook by URL or service.
type WebhookClientConfig struct {
	URL      *string           `json:"url,omitempty"`
	Service  *ServiceReference `json:"service,omitempty"`
	CABundle []byte            `json:"caBundle,omitempty"`
}

// ServiceReference names a service.
type ServiceReference struct {
	Namespace string  `json:"namespace"`
	Name      string  `json:"name"`
	Path      *string `json:"path,omitempty"`
	Port      *int32  `json:"port,omitempty"`
}

// CustomResourceValidation holds a version's schema.
type CustomResourceValidation struct {
	OpenAPIV3Schema *JSONSchemaProps `json:"openAPIV3Schema,omitempty"`
}

// CustomResourceSubresources are the status and scale subresources.
type CustomResourceSubresources struct {
	Status *CustomResourceSubresourceStatus `json:"status,omitempty"`
	Scale  *CustomResourceSubresourceScale  `json:"scale,omitempty"`
}

// CustomResourceSubresourceStatus enables /status.
type CustomResourceSubresourceStatus struct{}

// CustomResourceSubresourceScale enables /scale.
type CustomResourceSubresourceScale struct {
	SpecReplicasPath   string  `json:"specReplicasPath"`
	StatusReplicasPath string  `json:"statusReplicasPath"`
	LabelSelectorPath  *string `json:"labelSelectorPath,omitempty"`
}

// CustomResourceDefinitionStatus is what the server observed.
type CustomResourceDefinitionStatus struct {
	Conditions     []CustomResourceDefinitionCondition `json:"conditions,omitempty"`
	AcceptedNames  CustomResourceDefinitionNames       `json:"acceptedNames"`
	StoredVersions []string                            `json:"storedVersions"`
}

// CustomResourceDefinitionConditionType is a condition's type.
type CustomResourceDefinitionConditionType string

// The condition types.
const (
	Established                           CustomResourceDefinitionConditionType = "Established"
	NamesAccepted                         CustomResourceDefinitionConditionType = "NamesAccepted"
	NonStructuralSchema                   CustomResourceDefinitionConditionType = "NonStructuralSchema"
	Terminating                           CustomResourceDefinitionConditionType = "Terminating"
	KubernetesAPIApprovalPolicyConformant CustomResourceDefinitionConditionType = "KubernetesAPIApprovalPolicyConformant"
)

// ConditionStatus is True, False or Unknown.
type ConditionStatus string

// The condition statuses.
const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)

// CustomResourceDefinitionCondition is one condition.
type CustomResourceDefinitionCondition struct {
	Type               CustomResourceDefinitionConditionType `json:"type"`
	Status             ConditionStatus                       `json:"status"`
	LastTransitionTime metav1.Time                           `json:"lastTransitionTime,omitempty"`
	Reason             string                                `json:"reason,omitempty"`
	Message            string                                `json:"message,omitempty"`
}

// JSONSchemaProps is an OpenAPI v3 schema with Kubernetes extensions.
type JSONSchemaProps struct {
	ID                   string                     `json:"id,omitempty"`
	Schema               JSONSchemaURL              `json:"$schema,omitempty"`
	Ref                  *string                    `json:"$ref,omitempty"`
	Description          string                     `json:"description,omitempty"`
	Type                 string                     `json:"type,omitempty"`
	Format               string                     `json:"format,omitempty"`
	Title                string                     `json:"title,omitempty"`
	Default              *JSON                      `json:"default,omitempty"`
	Maximum              *float64                   `json:"maximum,omitempty"`
	ExclusiveMaximum     bool                       `json:"exclusiveMaximum,omitempty"`
	Minimum              *float64                   `json:"minimum,omitempty"`
	ExclusiveMinimum     bool                       `json:"exclusiveMinimum,omitempty"`
	MaxLength            *int64                     `json:"maxLength,omitempty"`
	MinLength            *int64                     `json:"minLength,omitempty"`
	Pattern              string                     `json:"pattern,omitempty"`
	MaxItems             *int64                     `json:"maxItems,omitempty"`
	MinItems             *int64                     `json:"minItems,omitempty"`
	UniqueItems          bool                       `json:"uniqueItems,omitempty"`
	MultipleOf           *float64                   `json:"multipleOf,omitempty"`
	Enum                 []JSON                     `json:"enum,omitempty"`
	MaxProperties        *int64                     `json:"maxProperties,omitempty"`
	MinProperties        *int64                     `json:"minProperties,omitempty"`
	Required             []string                   `json:"required,omitempty"`
	Items                *JSONSchemaPropsOrArray    `json:"items,omitempty"`
	AllOf                []JSONSchemaProps          `json:"allOf,omitempty"`
	OneOf                []JSONSchemaProps          `json:"oneOf,omitempty"`
	AnyOf                []JSONSchemaProps          `json:"anyOf,omitempty"`
	Not                  *JSONSchemaProps           `json:"not,omitempty"`
	Properties           map[string]JSONSchemaProps `json:"properties,omitempty"`
	AdditionalProperties *JSONSchemaPropsOrBool     `json:"additionalProperties,omitempty"`
	PatternProperties    map[string]JSONSchemaProps `json:"patternProperties,omitempty"`
	Dependencies         JSONSchemaDependencies     `json:"dependencies,omitempty"`
	AdditionalItems      *JSONSchemaPropsOrBool     `json:"additionalItems,omitempty"`
	Definitions          JSONSchemaDefinitions      `json:"definitions,omitempty"`
	ExternalDocs         *ExternalDocumentation     `json:"externalDocs,omitempty"`
	Example              *JSON                      `json:"example,omitempty"`
	Nullable             bool                       `json:"nullable,omitempty"`

	XPreserveUnknownFields *bool           `json:"x-kubernetes-preserve-unknown-fields,omitempty"`
	XEmbeddedResource      bool            `json:"x-kubernetes-embedded-resource,omitempty"`
	XIntOrString           bool            `json:"x-kubernetes-int-or-string,omitempty"`
	XListMapKeys           []string        `json:"x-kubernetes-list-map-keys,omitempty"`
	XListType              *string         `json:"x-kubernetes-list-type,omitempty"`
	XMapType               *string         `json:"x-kubernetes-map-type,omitempty"`
	XValidations           ValidationRules `json:"x-kubernetes-validations,omitempty"`
}

// ValidationRules are CEL rules.
type ValidationRules []ValidationRule

// ValidationRule is one CEL rule.
type ValidationRule struct {
	Rule              string                 `json:"rule"`
	Message           string                 `json:"message,omitempty"`
	MessageExpression string                 `json:"messageExpression,omitempty"`
	Reason            *FieldValueErrorReason `json:"reason,omitempty"`
	FieldPath         string                 `json:"fieldPath,omitempty"`
	OptionalOldSelf   *bool                  `json:"optionalOldSelf,omitempty"`
}

// FieldValueErrorReason is the reason a rule reports.
type FieldValueErrorReason string

// JSONSchemaURL is a schema URL.
type JSONSchemaURL string

// JSONSchemaDependencies maps a property to a schema or property list.
type JSONSchemaDependencies map[string]JSONSchemaPropsOrStringArray

// JSONSchemaDefinitions are named schemas.
type JSONSchemaDefinitions map[string]JSONSchemaProps

// ExternalDocumentation points at more docs.
type ExternalDocumentation struct {
	Description string `json:"description,omitempty"`
	URL         string `json:"url,omitempty"`
}

// JSON is any JSON value, kept raw.
type JSON struct {
	Raw []byte `json:"-"`
}

// MarshalJSON writes the raw value ("null" when empty).
func (s JSON) MarshalJSON() ([]byte, error) {
	if len(s.Raw) > 0 {
		return s.Raw, nil
	}
	return []byte("null"), nil
}

// UnmarshalJSON keeps the raw value.
func (s *JSON) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && string(data) != "null" {
		s.Raw = append(s.Raw[:0], data...)
	}
	return nil
}

// JSONSchemaPropsOrArray is a schema or a list of schemas (items).
type JSONSchemaPropsOrArray struct {
	Schema      *JSONSchemaProps
	JSONSchemas []JSONSchemaProps
}

// MarshalJSON writes whichever is set.
func (s JSONSchemaPropsOrArray) MarshalJSON() ([]byte, error) {
	if len(s.JSONSchemas) > 0 {
		return json.Marshal(s.JSONSchemas)
	}
	return json.Marshal(s.Schema)
}

// UnmarshalJSON reads an object or an array.
func (s *JSONSchemaPropsOrArray) UnmarshalJSON(data []byte) error {
	*s = JSONSchemaPropsOrArray{}
	if len(data) > 0 && data[0] == '[' {
		return json.Unmarshal(data, &s.JSONSchemas)
	}
	if string(data) == "null" {
		return nil
	}
	s.Schema = &JSONSchemaProps{}
	return json.Unmarshal(data, s.Schema)
}

// JSONSchemaPropsOrBool is a schema or a boolean (additionalProperties).
type JSONSchemaPropsOrBool struct {
	Allows bool
	Schema *JSONSchemaProps
}

// MarshalJSON writes the schema, or the boolean when there is none.
func (s JSONSchemaPropsOrBool) MarshalJSON() ([]byte, error) {
	if s.Schema != nil {
		return json.Marshal(s.Schema)
	}
	return json.Marshal(s.Allows)
}

// UnmarshalJSON reads an object or a boolean; an object allows.
func (s *JSONSchemaPropsOrBool) UnmarshalJSON(data []byte) error {
	*s = JSONSchemaPropsOrBool{}
	switch string(data) {
	case "true":
		s.Allows = true
		return nil
	case "false", "null":
		return nil
	}
	s.Allows = true
	s.Schema = &JSONSchemaProps{}
	return json.Unmarshal(data, s.Schema)
}

// JSONSchemaPropsOrStringArray is a schema or a list of property names.
type JSONSchemaPropsOrStringArray struct {
	Schema   *JSONSchemaProps
	Property []string
}

// MarshalJSON writes whichever is set.
func (s JSONSchemaPropsOrStringArray) MarshalJSON() ([]byte, error) {
	if len(s.Property) > 0 {
		return json.Marshal(s.Property)
	}
	return json.Marshal(s.Schema)
}

// UnmarshalJSON reads an object or a list of strings.
func (s *JSONSchemaPropsOrStringArray) UnmarshalJSON(data []byte) error {
	*s = JSONSchemaPropsOrStringArray{}
	if len(data) > 0 && data[0] == '[' {
		return json.Unmarshal(data, &s.Property)
	}
	if string(data) == "null" {
		return nil
	}
	s.Schema = &JSONSchemaProps{}
	return json.Unmarshal(data, s.Schema)
}

// The JSON-valued types describe themselves to OpenAPI without a type, as
// upstream publishes them: any JSON value (or a schema, or a list) fits,
// and server-side apply treats them as atomic values.

// OpenAPISchemaType is no type: any JSON value.
func (JSON) OpenAPISchemaType() []string { return nil }

// OpenAPISchemaFormat is none.
func (JSON) OpenAPISchemaFormat() string { return "" }

// OpenAPISchemaType is no type: a schema or a list of schemas.
func (JSONSchemaPropsOrArray) OpenAPISchemaType() []string { return nil }

// OpenAPISchemaFormat is none.
func (JSONSchemaPropsOrArray) OpenAPISchemaFormat() string { return "" }

// OpenAPISchemaType is no type: a schema or a boolean.
func (JSONSchemaPropsOrBool) OpenAPISchemaType() []string { return nil }

// OpenAPISchemaFormat is none.
func (JSONSchemaPropsOrBool) OpenAPISchemaFormat() string { return "" }

// OpenAPISchemaType is no type: a schema or a list of property names.
func (JSONSchemaPropsOrStringArray) OpenAPISchemaType() []string { return nil }

// OpenAPISchemaFormat is none.
func (JSONSchemaPropsOrStringArray) OpenAPISchemaFormat() string { return "" }
