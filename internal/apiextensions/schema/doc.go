// Package schema is the custom resource schema machinery: it turns a CRD
// version's openAPIV3Schema into its structural form (reporting why a schema
// is not structural), validates custom resource objects against it, prunes
// unknown fields, applies defaults, and publishes the schema as OpenAPI.
//
// Everything here works on the map[string]any content of
// *unstructured.Unstructured objects. Build a Validator once per CRD version
// and share it: it is safe for concurrent use.
package schema
